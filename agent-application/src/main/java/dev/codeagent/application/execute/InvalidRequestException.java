package dev.codeagent.application.execute;

/**
 * A request is wrong in a way the user can fix: the message names the field and what is allowed.
 * Front doors show it as it is (CLI: one line, status 2; HTTP: 400 problem+json).
 */
public final class InvalidRequestException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidRequestException(String field, String message) {
        super(message);
        this.field = field;
    }

    /** The offending field ({@code code}, {@code language}, {@code limits.timeoutMs}). */
    public String field() {
        return field;
    }
}
