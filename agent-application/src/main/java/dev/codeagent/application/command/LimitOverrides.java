package dev.codeagent.application.command;

import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.session.SessionLimits;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The limits one request asks for, each absent unless asked: what a task file's or an HTTP body's
 * {@code limits} object, the command line's {@code --timeout}/{@code --memory} and Piston's
 * {@code run_timeout}/{@code run_memory_limit}/{@code run_cpu_time} all become. Applied to the
 * configured defaults under a door's {@link InputPolicy}, they give the limits of a run.
 *
 * <p>Values are in milliseconds, bytes, a count, and 0/1 for the network; see {@link LimitField}.
 */
public final class LimitOverrides {

    public static final LimitOverrides NONE = new LimitOverrides(new EnumMap<>(LimitField.class));

    private final Map<LimitField, Long> values;

    private LimitOverrides(Map<LimitField, Long> values) {
        EnumMap<LimitField, Long> copy = new EnumMap<>(LimitField.class);
        copy.putAll(values);
        this.values = copy;
    }

    /** These overrides with {@code field} set to {@code value} (milliseconds, bytes, a count, 0/1). */
    public LimitOverrides with(LimitField field, long value) {
        EnumMap<LimitField, Long> more = new EnumMap<>(values);
        more.put(field, value);
        return new LimitOverrides(more);
    }

    public LimitOverrides withTimeout(Duration timeout) {
        return with(LimitField.TIMEOUT, timeout.toMillis());
    }

    public LimitOverrides withCpuTime(Duration cpuTime) {
        return with(LimitField.CPU_TIME, cpuTime.toMillis());
    }

    public LimitOverrides withMemoryBytes(long bytes) {
        return with(LimitField.MEMORY, bytes);
    }

    public LimitOverrides withNetwork(boolean allowed) {
        return with(LimitField.NETWORK, allowed ? 1 : 0);
    }

    /** Every value of {@code over} and, for the rest, these: how command-line flags win over a task file. */
    public LimitOverrides overriddenBy(LimitOverrides over) {
        EnumMap<LimitField, Long> merged = new EnumMap<>(values);
        merged.putAll(over.values);
        return new LimitOverrides(merged);
    }

    /** The fields asked for and their values, in {@link LimitField} order. */
    public Map<LimitField, Long> values() {
        return java.util.Collections.unmodifiableMap(values);
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    /**
     * Reads a {@code limits} object from a JSON-ish tree: a {@link Map} of field name to {@link Number},
     * {@link String} or {@link Boolean} (null meaning "the default"). Unknown fields and values of the
     * wrong type are added to {@code errors} under {@code path} ({@code "limits"}).
     *
     * @return the overrides, or null when there were errors
     */
    public static LimitOverrides fromTree(Object tree, String path, FieldErrors errors) {
        if (tree == null) {
            return NONE;
        }
        if (!(tree instanceof Map<?, ?> map)) {
            errors.add(path, "expected an object with the fields " + knownFields() + ", got " + LimitField.describe(tree));
            return null;
        }
        boolean ok = true;
        EnumMap<LimitField, Long> values = new EnumMap<>(LimitField.class);
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String name = String.valueOf(e.getKey());
            LimitField field = byWireName(name);
            if (field == null) {
                errors.add(path + "." + name, FieldError.UNKNOWN + "; known: " + knownFields());
                ok = false;
            } else if (e.getValue() != null) {
                Long v = field.parse(e.getValue(), path + "." + name, errors);
                if (v == null) {
                    ok = false;
                } else {
                    values.put(field, v);
                }
            }
        }
        return ok ? new LimitOverrides(values) : null;
    }

    /**
     * The limits of a run: {@code base} (the configured defaults, lowered to the door's caps and without
     * the network where the door never grants it) with these overrides, each checked against the
     * sandbox's range and the door's cap. Errors are added under {@code path} ({@code "limits"}).
     *
     * @return the limits, or null when there were errors
     */
    public ResourceLimits applyTo(ResourceLimits base, InputPolicy policy, String path, FieldErrors errors) {
        boolean ok = true;
        for (Map.Entry<LimitField, Long> e : values.entrySet()) {
            ok &= check(e.getKey(), e.getValue(), policy, path + "." + e.getKey().wireName(), errors);
        }
        if (!ok) {
            return null;
        }
        ResourceLimits l = within(base, policy);
        try {
            for (Map.Entry<LimitField, Long> e : values.entrySet()) {
                l = set(l, e.getKey(), e.getValue());
            }
            return l;
        } catch (IllegalArgumentException e) {
            // the checks above hold every value in the domain's range: reaching this is a bug, still a field error
            errors.add(path, e.getMessage());
            return null;
        }
    }

    /** The configured defaults as a door may hand them out: each capped, the network off unless grantable. */
    public static ResourceLimits within(ResourceLimits base, InputPolicy policy) {
        ResourceLimits l = base;
        for (LimitField f : LimitField.values()) {
            long max = policy.max(f);
            if (f != LimitField.NETWORK && get(l, f) > max) {
                l = set(l, f, max);
            }
        }
        return policy.networkGrantable() ? l : l.withNetwork(false);
    }

    /**
     * The limits of a session: {@code base} (a door's defaults for its sessions, lowered to the door's caps) with
     * these overrides, each checked against the sandbox's range and the door's cap exactly as a run's are. A session
     * has a time per cell ({@code timeoutMs}) and a memory; asking for any other field is an error here. Errors are added under {@code path}.
     *
     * @return the limits, or null when there were errors
     */
    public SessionLimits applyTo(SessionLimits base, InputPolicy policy, String path, FieldErrors errors) {
        boolean ok = true;
        for (Map.Entry<LimitField, Long> e : values.entrySet()) {
            String at = path + "." + e.getKey().wireName();
            if (!SESSION_FIELDS.contains(e.getKey())) {
                errors.add(at, "is not a limit of a session; a session's are " + SESSION_FIELDS.stream()
                        .map(LimitField::wireName).collect(Collectors.joining(", ")));
                ok = false;
            } else {
                ok &= check(e.getKey(), e.getValue(), policy, at, errors);
            }
        }
        if (!ok) {
            return null;
        }
        SessionLimits l = within(base, policy);
        for (Map.Entry<LimitField, Long> e : values.entrySet()) {
            try {
                l = set(l, e.getKey(), e.getValue());
            } catch (IllegalArgumentException tooLowForASession) {
                // a session's own floor (a kernel needs its memory) is above a run's: the domain's message says it
                errors.add(path + "." + e.getKey().wireName(), tooLowForASession.getMessage());
                return null;
            }
        }
        return l;
    }

    /** A door's defaults for its sessions as it may hand them out: each capped. */
    public static SessionLimits within(SessionLimits base, InputPolicy policy) {
        SessionLimits l = base;
        for (LimitField f : SESSION_FIELDS) {
            long max = policy.max(f);
            if (get(l, f) > max) {
                l = set(l, f, max);
            }
        }
        return l;
    }

    private static final java.util.Set<LimitField> SESSION_FIELDS =
            java.util.Collections.unmodifiableSet(java.util.EnumSet.of(LimitField.TIMEOUT, LimitField.MEMORY));

    private static long get(SessionLimits l, LimitField f) {
        return f == LimitField.TIMEOUT ? l.cellTimeout().toMillis() : l.memoryBytes();
    }

    private static SessionLimits set(SessionLimits l, LimitField f, long v) {
        return f == LimitField.TIMEOUT ? l.withCellTimeout(Duration.ofMillis(v)) : l.withMemoryBytes(v);
    }

    private static boolean check(LimitField f, long v, InputPolicy policy, String path, FieldErrors errors) {
        if (f == LimitField.NETWORK) {
            if (v == 1 && !policy.networkGrantable()) {
                errors.add(path, "network access is never granted here");
                return false;
            }
            return true;
        }
        long max = policy.max(f);
        if (v >= f.min() && v <= max) {
            return true;
        }
        String key = policy.key(f);
        String range = max == Long.MAX_VALUE || max == Integer.MAX_VALUE && f.kind() == LimitField.Kind.COUNT
                ? "must be at least " + f.format(f.min())
                : "must be between " + f.format(f.min()) + " and " + f.format(max) + (key == null ? "" : " (" + key + ")");
        errors.add(path, range + ", was " + f.format(v));
        return false;
    }

    private static long get(ResourceLimits l, LimitField f) {
        switch (f) {
            case TIMEOUT:
                return l.wallTime().toMillis();
            case CPU_TIME:
                return l.cpuTime().toMillis();
            case MEMORY:
                return l.memoryBytes();
            case MAX_PROCESSES:
                return l.maxProcesses();
            case MAX_OUTPUT_BYTES:
                return l.maxOutputBytes();
            case MAX_FILE_BYTES:
                return l.maxFileBytes();
            default:
                return l.network() ? 1 : 0;
        }
    }

    /** Sets one limit; the wall time is set first (EnumMap order), and the CPU limit follows it down, as a timeout means. */
    private static ResourceLimits set(ResourceLimits l, LimitField f, long v) {
        switch (f) {
            case TIMEOUT:
                return l.withWallTime(Duration.ofMillis(v));
            case CPU_TIME:
                return l.withCpuTime(Duration.ofMillis(v));
            case MEMORY:
                return l.withMemoryBytes(v);
            case MAX_PROCESSES:
                return l.withMaxProcesses(Math.toIntExact(v));
            case MAX_OUTPUT_BYTES:
                return l.withMaxOutputBytes(v);
            case MAX_FILE_BYTES:
                return l.withMaxFileBytes(v);
            default:
                return l.withNetwork(v != 0);
        }
    }

    private static LimitField byWireName(String name) {
        for (LimitField f : LimitField.values()) {
            if (f.wireName().equals(name)) {
                return f;
            }
        }
        return null;
    }

    static String knownFields() {
        return Arrays.stream(LimitField.values()).map(LimitField::wireName).collect(Collectors.joining(", "));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LimitOverrides other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.entrySet().stream().map(e -> e.getKey().wireName() + "=" + e.getKey().format(e.getValue()))
                .collect(Collectors.joining(", ", "LimitOverrides[", "]"));
    }
}
