package dev.codeagent.application.config;

/**
 * The configuration is wrong. The message is one line naming the key, the bad value and what is
 * allowed, fit to show a user as it is.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
