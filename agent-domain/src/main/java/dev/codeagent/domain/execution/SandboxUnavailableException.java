package dev.codeagent.domain.execution;

/**
 * A sandbox cannot be created on this host (no Docker engine, strict isolation not available,
 * interpreter missing). The message is one line that says what is missing and how to fix it.
 */
public final class SandboxUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SandboxUnavailableException(String message) {
        super(message);
    }

    public SandboxUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
