package dev.codeagent.domain.session;

/**
 * The session has ended (closed, idle timeout, lifetime reached, cell budget spent, sandbox lost) and cannot
 * run anything more. The message is one line a client can show: why it ended.
 */
public final class SessionEndedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SessionEndedException(String message) {
        super(message);
    }
}
