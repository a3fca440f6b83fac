package dev.codeagent.application.eval;

/**
 * An evaluation cannot start or go on: an unreadable or unusable input file, no sandbox for Python, a
 * generator that keeps failing. The message is one line naming what was wrong.
 */
public final class EvaluationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public EvaluationException(String message) {
        super(message);
    }

    public EvaluationException(String message, Throwable cause) {
        super(message, cause);
    }
}
