package dev.codeagent.http;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A request the API answers with an RFC 9457 problem: thrown anywhere in a handler, rendered as
 * {@code application/problem+json} by the server's exception mapper.
 */
final class ProblemException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The stable problem types; each {@code type} URI is {@link #BASE} + the slug. */
    enum Type {
        VALIDATION("validation", 400, "The request is invalid"),
        MALFORMED_JSON("malformed-json", 400, "The request body is not valid JSON"),
        INVALID_ENCODING("invalid-encoding", 400, "The request body is not valid UTF-8"),
        UNSUPPORTED_LANGUAGE("unsupported-language", 400, "The language is not supported"),
        UNAUTHORIZED("unauthorized", 401, "An API key is required"),
        FORBIDDEN("forbidden", 403, "This API key may not use this endpoint"),
        CROSS_SITE("cross-site", 403, "The API is not for cross-site use"),
        UNKNOWN_HOST("unknown-host", 421, "The Host is not a name of this server"),
        NOT_FOUND("not-found", 404, "Not found"),
        METHOD_NOT_ALLOWED("method-not-allowed", 405, "Method not allowed"),
        REQUEST_TIMEOUT("request-timeout", 408, "The request did not arrive in time"),
        CONFLICT("conflict", 409, "The request conflicts with the resource's state"),
        BODY_TOO_LARGE("body-too-large", 413, "The request body is too large"),
        IDEMPOTENCY_KEY_REUSED("idempotency-key-reused", 422, "The Idempotency-Key was used with another request"),
        UNSUPPORTED_MEDIA_TYPE("unsupported-media-type", 415, "The request body must be application/json"),
        RATE_LIMITED("rate-limited", 429, "Too many requests"),
        OVERLOADED("overloaded", 503, "The server is at capacity"),
        SHUTTING_DOWN("shutting-down", 503, "The server is shutting down"),
        HEADERS_TOO_LARGE("headers-too-large", 431, "The request headers are too large"),
        URI_TOO_LONG("uri-too-long", 414, "The request URI is too long"),
        BAD_REQUEST("bad-request", 400, "The request could not be read"),
        INTERNAL("internal", 500, "Internal server error"),
        /** Any other status (RFC 9457's default type). */
        OTHER(null, 0, "HTTP error");

        final String slug;
        final int status;
        final String title;

        Type(String slug, int status, String title) {
            this.slug = slug;
            this.status = status;
            this.title = title;
        }

        String uri() {
            return slug == null ? "about:blank" : BASE + slug;
        }
    }

    /** One offending field of a validation problem. */
    record FieldError(String field, String message) {
    }

    static final String BASE = "https://codeagent.dev/problems/";

    private final Type type;
    private final int status;
    private final List<FieldError> errors;
    private final transient Duration retryAfter;
    private final transient Map<String, Object> extensions;

    ProblemException(Type type, String detail) {
        this(type, detail, List.of(), null, Map.of());
    }

    ProblemException(Type type, String detail, List<FieldError> errors, Duration retryAfter, Map<String, Object> extensions) {
        this(type, type.status, detail, errors, retryAfter, extensions);
    }

    private ProblemException(Type type, int status, String detail, List<FieldError> errors, Duration retryAfter,
            Map<String, Object> extensions) {
        super(detail, null, false, false);
        this.type = Objects.requireNonNull(type, "type");
        this.status = status;
        this.errors = List.copyOf(errors);
        this.retryAfter = retryAfter;
        this.extensions = Map.copyOf(extensions);
    }

    /** A 400 naming one field. */
    static ProblemException invalid(String field, String message) {
        return new ProblemException(Type.VALIDATION, field + ": " + message, List.of(new FieldError(field, message)), null, Map.of());
    }

    /** A 400 naming several fields. */
    static ProblemException invalid(List<FieldError> errors) {
        String detail = errors.size() == 1 ? errors.get(0).field() + ": " + errors.get(0).message()
                : errors.size() + " fields are invalid: " + String.join(", ", errors.stream().map(FieldError::field).toList());
        return new ProblemException(Type.VALIDATION, detail, errors, null, Map.of());
    }

    static ProblemException retryLater(Type type, String detail, Duration retryAfter) {
        return new ProblemException(type, detail, List.of(), retryAfter, Map.of());
    }

    Type type() {
        return type;
    }

    /** The HTTP status: the type's, unless this stands for a status Jetty chose. */
    int status() {
        return status;
    }

    ProblemException withStatus(int otherStatus) {
        return new ProblemException(type, otherStatus, getMessage(), errors, retryAfter, extensions);
    }

    List<FieldError> errors() {
        return errors;
    }

    Duration retryAfter() {
        return retryAfter;
    }

    Map<String, Object> extensions() {
        return extensions;
    }
}
