package dev.codeagent.application.run;

/** A run the {@link RunScheduler} would not start; nothing of it was recorded. */
public final class RunRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why. */
    public enum Why {
        /** Every run place is taken; a later try may succeed. */
        BUSY,
        /** The scheduler is stopping and takes no more runs. */
        STOPPING
    }

    private final Why why;

    RunRefusedException(Why why, String message) {
        super(message);
        this.why = why;
    }

    public Why why() {
        return why;
    }
}
