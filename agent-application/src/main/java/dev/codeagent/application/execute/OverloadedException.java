package dev.codeagent.application.execute;

import java.time.Duration;

/** Too many executions are running; the request was refused without running. Try again after {@link #retryAfter()}. */
public final class OverloadedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Duration retryAfter;

    public OverloadedException(String message, Duration retryAfter) {
        super(message);
        this.retryAfter = retryAfter;
    }

    public Duration retryAfter() {
        return retryAfter;
    }
}
