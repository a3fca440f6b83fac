package dev.codeagent.application.command;

import java.util.Objects;

/**
 * One thing wrong with a request, by the field it is in.
 *
 * @param field the path of the field as the user wrote it ({@code limits.timeoutMs}, {@code maxAttempts})
 * @param message what is wrong and what is allowed, relative to the field ({@code must be between 1 and 20, was 50})
 */
public record FieldError(String field, String message) {

    static final String UNKNOWN = "unknown field";

    public FieldError {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(message, "message");
    }

    /**
     * The error as one line: {@code limits.timeoutMs: must be …}, or for a field that has no place in
     * the request {@code unknown field 'limts'; known: …}, which reads better with the name in it.
     */
    public String describe() {
        return message.startsWith(UNKNOWN) ? UNKNOWN + " '" + field + "'" + message.substring(UNKNOWN.length()) : field + ": " + message;
    }
}
