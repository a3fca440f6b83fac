package dev.codeagent.application.session;

import java.time.Duration;

/**
 * A session a tier may start before anyone asks for it ({@link PooledSessions}): its clocks (idle time, lifetime)
 * must run from when it is handed out, not from when it started. A tier's session implements this when its limits
 * are clocked from its start; a pool hands out any other session as it is.
 */
public interface StartedAhead {

    /** How long a session may take to start; a pool that is closing waits this long for one it is starting. */
    Duration START = Duration.ofSeconds(60);

    /** Starts the session's clocks again: it is its user's from now. */
    void handedOut();
}
