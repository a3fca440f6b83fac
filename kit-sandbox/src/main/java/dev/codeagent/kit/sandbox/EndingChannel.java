package dev.codeagent.kit.sandbox;

/**
 * What every tier's {@link BridgeSession.Channel} shares: the tail of the bridge's stderr, why the sandbox was ended
 * when a session-wide limit ended it, and a {@link #destroy()} that releases the sandbox exactly once. A tier says
 * how its sandbox goes in {@link #release()}.
 */
public abstract class EndingChannel implements BridgeSession.Channel {

    /** The bridge's stderr, kept by its last bytes; the tier feeds it. */
    protected final StderrTail tail = new StderrTail();
    private boolean destroyed;
    private String endedBy;

    @Override
    public final synchronized String diagnostics() {
        String err = tail.text();
        return endedBy == null ? err : endedBy + (err.isEmpty() ? "" : "\n" + err);
    }

    /** Whether the sandbox has been released. */
    public final synchronized boolean destroyed() {
        return destroyed;
    }

    /** Ends the sandbox because a session-wide limit was reached; {@link #diagnostics()} says which. */
    public final void ended(String why) {
        synchronized (this) {
            endedBy = why;
        }
        destroy();
    }

    /** Says why the sandbox went, unless it was ended or destroyed on purpose first (a broken stream). */
    protected final synchronized void failed(String why) {
        if (endedBy == null && !destroyed) {
            endedBy = why;
        }
    }

    @Override
    public final void destroy() {
        synchronized (this) {
            if (destroyed) {
                return;
            }
            destroyed = true;
        }
        release();
    }

    /** Kills the sandbox and removes what it left; called once, from any thread. */
    protected abstract void release();
}
