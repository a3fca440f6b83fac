package dev.codeagent.store.postgres;

/**
 * The database cannot be used: it cannot be reached, refused the login, holds a schema this version
 * does not know, or a call failed and did not recover within the retry window. The message is one
 * line naming the database (without credentials) and the reason, fit to show a user.
 */
public class PostgresUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public PostgresUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
