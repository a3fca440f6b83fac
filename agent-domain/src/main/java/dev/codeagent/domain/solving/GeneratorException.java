package dev.codeagent.domain.solving;

import java.time.Duration;
import java.util.Objects;

/** A generator could not produce a reply. */
public final class GeneratorException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Whether and how to go on. */
    public enum Kind {
        /** Rate limit, server error, timeout, refused connection: trying again later may work. */
        TRANSIENT,
        /** The endpoint refused the credentials (401/403): stop, fix the API key. */
        AUTHENTICATION,
        /** Anything else (bad request, malformed or truncated reply, unknown model): trying again will not help. */
        PERMANENT
    }

    private final Kind kind;
    private final transient Duration retryAfter;

    public GeneratorException(Kind kind, String message, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
        this.retryAfter = retryAfter;
    }

    public GeneratorException(Kind kind, String message) {
        this(kind, message, null, null);
    }

    public Kind kind() {
        return kind;
    }

    /** How long the endpoint asked us to wait before trying again (HTTP Retry-After), or null. */
    public Duration retryAfter() {
        return retryAfter;
    }

    public boolean isTransient() {
        return kind == Kind.TRANSIENT;
    }
}
