package dev.codeagent.application.command;

import dev.codeagent.application.config.Units;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.Locale;

/**
 * The limits a request may set, by their one name on every front door ({@code limits.timeoutMs} in a
 * task file and over HTTP), with the kind of value each takes and the range the sandbox accepts.
 * Durations and sizes are a whole number (milliseconds, bytes) or a string with a unit ({@code "5s"},
 * {@code "256m"}, {@code "1.5GiB"}); a string without a unit is refused, since {@code "5"} is more
 * likely a client's bug than a wish for five milliseconds.
 */
public enum LimitField {
    TIMEOUT("timeoutMs", Kind.DURATION, 1, 86_400_000L),
    CPU_TIME("cpuTimeMs", Kind.DURATION, 1, 86_400_000L),
    MEMORY("memoryBytes", Kind.SIZE, 16 * ResourceLimits.MIB, Long.MAX_VALUE),
    MAX_PROCESSES("maxProcesses", Kind.COUNT, 1, Integer.MAX_VALUE),
    MAX_OUTPUT_BYTES("maxOutputBytes", Kind.SIZE, 1, Long.MAX_VALUE),
    MAX_FILE_BYTES("maxFileBytes", Kind.SIZE, 0, Long.MAX_VALUE),
    NETWORK("network", Kind.SWITCH, 0, 1);

    /** What a value means. */
    enum Kind {
        DURATION, SIZE, COUNT, SWITCH
    }

    private final String wireName;
    private final Kind kind;
    private final long min;
    private final long max;

    LimitField(String wireName, Kind kind, long min, long max) {
        this.wireName = wireName;
        this.kind = kind;
        this.min = min;
        this.max = max;
    }

    /** The field's name in a request's {@code limits} object. */
    public String wireName() {
        return wireName;
    }

    /** The least value the sandbox accepts (milliseconds, bytes, a count). */
    public long min() {
        return min;
    }

    /** The most the sandbox accepts, before any front door's cap. */
    public long max() {
        return max;
    }

    Kind kind() {
        return kind;
    }

    /**
     * The value of a JSON-ish tree node (a {@link Number}, {@link String}, {@link Boolean}, map or list)
     * in milliseconds, bytes, a count or 0/1; null when it is wrong, with the error added.
     */
    Long parse(Object value, String path, FieldErrors errors) {
        String expected = expected();
        if (kind == Kind.SWITCH) {
            if (value instanceof Boolean b) {
                return b ? 1L : 0L;
            }
            errors.add(path, expected + ", got " + describe(value));
            return null;
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof java.math.BigInteger) {
            errors.add(path, "is out of range, was " + abbreviate(value.toString()));
            return null;
        }
        if (value instanceof String text && kind != Kind.COUNT) {
            String t = text.trim();
            if (t.matches("[0-9.]+")) {
                errors.add(path, "'" + abbreviate(text) + "' has no unit; write " + (kind == Kind.DURATION ? "a number of milliseconds or e.g. \"5s\""
                        : "a number of bytes or e.g. \"256m\""));
                return null;
            }
            try {
                return kind == Kind.DURATION ? Units.parseDuration(t).toMillis() : Units.parseBytes(t);
            } catch (IllegalArgumentException e) {
                errors.add(path, abbreviate(e.getMessage()));
                return null;
            }
        }
        errors.add(path, expected + ", got " + describe(value));
        return null;
    }

    /** A value of this field as people read it: {@code 5s}, {@code 256 MiB}, {@code 64}, {@code true}. */
    String format(long value) {
        switch (kind) {
            case DURATION:
                return value < 0 ? value + "ms" : Units.formatDuration(Duration.ofMillis(value));
            case SIZE:
                return bytes(value);
            case SWITCH:
                return value == 0 ? "false" : "true";
            default:
                return Long.toString(value);
        }
    }

    private String expected() {
        switch (kind) {
            case DURATION:
                return "expected a whole number of milliseconds or a duration like \"5s\"";
            case SIZE:
                return "expected a whole number of bytes or a size like \"256m\"";
            case SWITCH:
                return "expected true or false";
            default:
                return "expected a whole number";
        }
    }

    static String bytes(long b) {
        if (b > 0 && b % (1L << 30) == 0) {
            return (b >> 30) + " GiB";
        }
        if (b > 0 && b % (1L << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b > 0 && b % 1024 == 0) {
            return (b >> 10) + " KiB";
        }
        return b == 1 ? "1 byte" : b + " bytes";
    }

    /** The JSON type of a tree node, for "expected a string, got number". */
    static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Number n) {
            return "number " + abbreviate(n.toString());
        }
        if (value instanceof String s) {
            return "string \"" + abbreviate(s) + "\"";
        }
        if (value instanceof Boolean b) {
            return b.toString();
        }
        if (value instanceof java.util.Map) {
            return "an object";
        }
        if (value instanceof java.util.List) {
            return "an array";
        }
        return value.getClass().getSimpleName().toLowerCase(Locale.ROOT);
    }

    static String abbreviate(String s) {
        String line = s.replaceAll("[\\r\\n]+", " ");
        return line.length() <= 40 ? line : line.substring(0, 40) + "…";
    }
}
