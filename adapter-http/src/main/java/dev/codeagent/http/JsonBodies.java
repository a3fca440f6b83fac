package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.BadMessageException;

/**
 * Reads request bodies defensively: a size cap checked before and while reading (413), a deadline for
 * the whole body (408), strict UTF-8
 * (400), strict JSON binding (unknown fields and wrong types are 400s naming the field). Nothing a
 * client sends can make this throw anything but a {@link ProblemException}.
 */
final class JsonBodies {

    private final ObjectMapper strict;
    private final ObjectMapper lenient;
    private final long maxBytes;
    private final Duration deadline;

    JsonBodies(long maxBytes, Duration deadline) {
        this.maxBytes = maxBytes;
        this.deadline = deadline;
        this.strict = configure(true);
        this.lenient = configure(false);
    }

    private static ObjectMapper configure(boolean failOnUnknown) {
        ObjectMapper mapper = JsonMapper.builder()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, failOnUnknown)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .build();
        // "5" is not a number and 5 is not a string: a client sending either has a bug worth hearing about
        for (CoercionInputShape shape : List.of(CoercionInputShape.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean)) {
            mapper.coercionConfigFor(LogicalType.Textual).setCoercion(shape, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Float).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        return mapper;
    }

    /** Binds the body to {@code type}, failing on unknown fields. */
    <T> T strict(Context ctx, Class<T> type) {
        requireJson(ctx);
        return bind(strict, text(ctx), type);
    }

    /** The body as JSON text, its Content-Type checked as {@link #strict(Context, Class)} does, for {@link #strict(String, Class)}. */
    String jsonText(Context ctx) {
        requireJson(ctx);
        return text(ctx);
    }

    /** Binds a body read with {@link #jsonText} to {@code type}, failing on unknown fields. */
    <T> T strict(String text, Class<T> type) {
        return bind(strict, text, type);
    }

    /** Binds the body to {@code type}, ignoring unknown fields (for wire formats defined by others), any content type. */
    <T> T lenient(Context ctx, Class<T> type) {
        return bind(lenient, text(ctx), type);
    }

    private static void requireJson(Context ctx) {
        String contentType = ctx.header("Content-Type");
        String base = contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!base.equals("application/json") && !base.endsWith("+json")) {
            throw new ProblemException(Type.UNSUPPORTED_MEDIA_TYPE, "send the body as JSON with Content-Type: application/json"
                    + (contentType == null ? " (no Content-Type was given)" : " (got " + abbreviate(contentType, 80) + ")"));
        }
        if (contentType.toLowerCase(Locale.ROOT).contains("charset=") && !contentType.toLowerCase(Locale.ROOT).matches(".*charset=\"?utf-8\"?.*")) {
            throw new ProblemException(Type.UNSUPPORTED_MEDIA_TYPE, "JSON bodies must be UTF-8 (got " + abbreviate(contentType, 80) + ")");
        }
    }

    /** The body as text: at most the cap, valid UTF-8, not empty. */
    String text(Context ctx) {
        byte[] bytes = bytes(ctx);
        if (bytes.length == 0) {
            throw new ProblemException(Type.MALFORMED_JSON, "the request body is empty; expected a JSON object");
        }
        return decodeUtf8(bytes);
    }

    /** The raw body (a file's bytes), with the same cap and deadline as a JSON body; may be empty. */
    byte[] bytes(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) {
            throw tooLarge(declared + " bytes");
        }
        byte[] bytes;
        try (InputStream in = ctx.req().getInputStream()) {
            bytes = readBefore(in, System.nanoTime() + deadline.toNanos());
        } catch (IOException e) {
            if (e.getCause() instanceof BadMessageException) {
                throw unreadable((BadMessageException) e.getCause());
            }
            // the client stopped sending (idle timeout), went away, or broke the chunking (Jetty reports an early EOF)
            throw new ProblemException(Type.REQUEST_TIMEOUT, "the request body did not arrive in time or was cut short");
        } catch (BadMessageException e) {
            // Jetty's verdict on the body while it streams: trickled too slowly, broken chunking, too large
            throw unreadable(e);
        }
        if (bytes.length > maxBytes) {
            throw tooLarge("more than " + maxBytes + " bytes");
        }
        return bytes;
    }

    /**
     * Reads at most the cap plus one byte, within the deadline. Jetty's minimum data rate alone would let a
     * client send a body of the full cap at 1 KiB/s and hold a request thread for half an hour.
     */
    private byte[] readBefore(InputStream in, long deadlineNanos) throws IOException {
        long limit = Math.min(Integer.MAX_VALUE - 8, maxBytes + 1);
        ByteArrayOutputStream got = new ByteArrayOutputStream((int) Math.min(limit, 64 * 1024));
        byte[] chunk = new byte[16 * 1024];
        while (got.size() < limit) {
            int n = in.read(chunk, 0, (int) Math.min(chunk.length, limit - got.size()));
            if (n < 0) {
                break;
            }
            got.write(chunk, 0, n);
            if (System.nanoTime() - deadlineNanos > 0 && got.size() < limit) {
                throw new ProblemException(Type.REQUEST_TIMEOUT, "the request body arrived too slowly: it must arrive within "
                        + deadline.toMillis() + " ms (http.requestTimeout)");
            }
        }
        return got.toByteArray();
    }

    private ProblemException unreadable(BadMessageException e) {
        switch (e.getCode()) {
            case 408:
                return new ProblemException(Type.REQUEST_TIMEOUT, "the request body arrived too slowly (" + abbreviate(e.getReason(), 80)
                        + ")");
            case 413:
                return tooLarge("more than " + maxBytes + " bytes");
            default:
                return new ProblemException(Type.BAD_REQUEST, "the request body could not be read: " + abbreviate(e.getReason(), 120));
        }
    }

    private ProblemException tooLarge(String size) {
        return new ProblemException(Type.BODY_TOO_LARGE, "the body is " + size + "; the limit is " + maxBytes
                + " bytes (http.maxBodyBytes)");
    }

    static String decodeUtf8(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            CharBuffer out = decoder.decode(in);
            return out.toString();
        } catch (MalformedInputException e) {
            throw new ProblemException(Type.INVALID_ENCODING, "the body is not valid UTF-8 (bad byte at offset " + in.position() + ")");
        } catch (CharacterCodingException e) {
            throw new ProblemException(Type.INVALID_ENCODING, "the body is not valid UTF-8");
        }
    }

    private static <T> T bind(ObjectMapper mapper, String text, Class<T> type) {
        try {
            T value = mapper.readValue(text, type);
            if (value == null) {
                throw new ProblemException(Type.VALIDATION, "the body is null; expected a JSON object");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            String field = path(e);
            throw ProblemException.invalid(field, "unknown field; known fields here: " + known(e.getKnownPropertyIds()));
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw ProblemException.invalid(path(e).isEmpty() ? "body" : path(e), cause.getMessage());
        } catch (MismatchedInputException e) {
            String field = path(e);
            String expected = "expected " + describe(e.getTargetType());
            if (field.isEmpty()) {
                throw new ProblemException(Type.VALIDATION, "body: " + expected,
                        List.of(new ProblemException.FieldError("body", expected)), null, Map.of());
            }
            throw ProblemException.invalid(field, expected);
        } catch (JsonParseException e) {
            throw malformed(e);
        } catch (JsonMappingException e) {
            throw ProblemException.invalid(path(e).isEmpty() ? "body" : path(e), abbreviate(parserMessage(e), 200));
        } catch (JsonProcessingException e) {
            throw malformed(e);
        }
    }

    private static ProblemException malformed(JsonProcessingException e) {
        String where = e.getLocation() == null ? ""
                : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
        return new ProblemException(Type.MALFORMED_JSON, "malformed JSON" + where + ": " + abbreviate(parserMessage(e), 200));
    }

    /** Jackson's message without its advice to the server's programmer (which feature to enable, which constraint). */
    static String parserMessage(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        return m == null ? "" : m.replaceAll(":? *enable `[^`]*` to allow", "").replaceAll(", from `[^`]*`", "");
    }

    private static String known(Collection<Object> ids) {
        return ids == null ? "" : ids.stream().map(Object::toString).sorted().collect(Collectors.joining(", "));
    }

    private static String describe(Class<?> type) {
        if (type == null) {
            return "another type";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Double.class || type == double.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (List.class.isAssignableFrom(type) || type.isArray()) {
            return "an array";
        }
        return "a JSON object";
    }

    /** {@code limits.timeoutMs}, {@code files[0].content}. */
    static String path(JsonMappingException e) {
        return e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }

    static String abbreviate(String s, int max) {
        if (s == null) {
            return "";
        }
        String oneLine = s.replaceAll("[\\r\\n]+", " ");
        return oneLine.length() <= max ? oneLine : oneLine.substring(0, max) + "…";
    }
}
