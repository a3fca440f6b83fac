package dev.codeagent.sandbox.docker;

/** The Docker engine did not do what was asked: unreachable, timed out, refused, or failing fast while down. */
final class EngineFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    EngineFailure(String message, Throwable cause) {
        super(message, cause);
    }

    EngineFailure(String message) {
        super(message);
    }
}
