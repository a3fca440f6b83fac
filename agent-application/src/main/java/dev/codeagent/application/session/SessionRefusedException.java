package dev.codeagent.application.session;

/**
 * {@link OpenSessions} would not open a session: a cap is reached or sessions are off. The message is one line a
 * caller can show as it is; a door that names its own settings renders {@link #reason()} and {@link #limit()} itself.
 * A tier that hosts no sessions is not this but a {@link dev.codeagent.domain.execution.SandboxUnavailableException}.
 */
public final class SessionRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Which cap refused. */
    public enum Reason {
        /** No session may be opened ({@link SessionPlaces#max()} is 0). */
        OFF,
        /** The owner holds {@link SessionPlaces#perOwner()} sessions. */
        OWNER_FULL,
        /** Every place of {@link SessionPlaces#max()} is taken (by any owner): worth trying again later. */
        ALL_FULL,
        /** The registry is closed (the process is stopping). */
        CLOSED
    }

    private final Reason reason;
    private final int limit;

    SessionRefusedException(Reason reason, int limit, String message) {
        super(message);
        this.reason = reason;
        this.limit = limit;
    }

    public Reason reason() {
        return reason;
    }

    /** The cap that refused (0 for OFF and CLOSED). */
    public int limit() {
        return limit;
    }
}
