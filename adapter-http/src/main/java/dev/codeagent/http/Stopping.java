package dev.codeagent.http;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the server has begun to stop: the server sets it, the request guard, health and live Piston runs read it.
 * One per composition, so the parts made apart from the server see the server's own stop.
 */
final class Stopping {

    private final AtomicBoolean stopping = new AtomicBoolean();

    @jakarta.inject.Inject
    Stopping() {
    }

    boolean get() {
        return stopping.get();
    }

    /** Marks the stop; true only for the first caller. */
    boolean begin() {
        return stopping.compareAndSet(false, true);
    }
}
