package dev.codeagent.domain.execution;

/** An execution was cancelled (its thread interrupted) and has been killed and cleaned up. */
public final class ExecutionCancelledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ExecutionCancelledException(String message) {
        super(message);
    }
}
