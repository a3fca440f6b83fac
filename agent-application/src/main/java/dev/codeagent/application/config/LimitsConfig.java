package dev.codeagent.application.config;

import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The default resource limits of an execution, and of a compiled language's compile stage ({@code compileTimeout}
 * wall and CPU, {@code compileMemory}); requests may lower or raise them per run. {@code cpuTime} may be left unset
 * (null, the default): the CPU limit is then the wall limit, whatever sets that ({@code limits.timeout}, {@code exec
 * --timeout}); set, it is an explicit limit that no other one raises (a longer {@code --timeout} leaves it, a shorter
 * one lowers it: of two limits on CPU time the tighter wins). Checked
 * against the domain's ranges when read, so a bad value stops the program at start instead of being
 * replaced by a default somewhere later.
 */
public record LimitsConfig(
        Duration timeout,
        Duration cpuTime,
        ByteSize memory,
        int processes,
        ByteSize outputBytes,
        ByteSize fileBytes,
        boolean network,
        Duration compileTimeout,
        ByteSize compileMemory,
        Duration maxWallTime) {

    /**
     * The longest {@code timeout} (and {@code cpuTime}) a config or a command may ask for unless
     * {@code limits.maxWallTime} allows more: an hour, so a forgotten {@code --timeout 9h} does not hold a
     * sandbox place all day; the domain's own bound ({@link ResourceLimits#MAX_WALL}) is the most it may be raised to.
     */
    public static final Duration DEFAULT_MAX_WALL = Duration.ofHours(1);

    /** The domain's names for the limits, to the config keys a user writes. */
    private static final Map<String, String> KEYS = Map.of(
            "wallTime", "limits.timeout",
            "cpuTime", "limits.cpuTime",
            "memoryBytes", "limits.memory",
            "maxProcesses", "limits.processes",
            "maxOutputBytes", "limits.outputBytes",
            "maxFileBytes", "limits.fileBytes");
    private static final Map<String, String> COMPILE_KEYS = Map.of(
            "wallTime", "limits.compileTimeout",
            "cpuTime", "limits.compileTimeout",
            "memoryBytes", "limits.compileMemory");

    public LimitsConfig {
        Objects.requireNonNull(timeout, "limits.timeout");
        Objects.requireNonNull(memory, "limits.memory");
        Objects.requireNonNull(outputBytes, "limits.outputBytes");
        Objects.requireNonNull(fileBytes, "limits.fileBytes");
        maxWallTime = maxWallTime == null ? DEFAULT_MAX_WALL : maxWallTime;
        if (maxWallTime.toMillis() < 1 || maxWallTime.compareTo(ResourceLimits.MAX_WALL) > 0) {
            throw new IllegalArgumentException("limits.maxWallTime must be between 1ms and "
                    + Units.formatDuration(ResourceLimits.MAX_WALL) + ", was " + Units.formatDuration(maxWallTime));
        }
        // in the user's units and keys: "limits.timeout 2h is longer than the ceiling 1h (limits.maxWallTime …)"
        checkCeiling("limits.timeout", timeout, maxWallTime);
        if (cpuTime != null) {
            checkCeiling("limits.cpuTime", cpuTime, maxWallTime);
        }
        try {
            new ResourceLimits(timeout, cpuTime == null ? timeout : cpuTime, memory.bytes(), processes, outputBytes.bytes(), fileBytes.bytes(), network);
        } catch (IllegalArgumentException e) {
            throw invalid("invalid limits: ", KEYS, e);
        }
        compileTimeout = compileTimeout == null ? ResourceLimits.compileDefaults().wallTime() : compileTimeout;
        compileMemory = compileMemory == null ? new ByteSize(ResourceLimits.compileDefaults().memoryBytes()) : compileMemory;
        try {
            compile(compileTimeout, compileMemory);
        } catch (IllegalArgumentException e) {
            throw invalid("invalid compile limits: ", COMPILE_KEYS, e);
        }
    }

    private static void checkCeiling(String key, Duration value, Duration ceiling) {
        if (value.compareTo(ceiling) > 0) {
            throw new IllegalArgumentException(key + " " + Units.formatDuration(value) + " is longer than the ceiling "
                    + Units.formatDuration(ceiling) + " (limits.maxWallTime; raise it in config, at most "
                    + Units.formatDuration(ResourceLimits.MAX_WALL) + ")");
        }
    }

    /** The domain's refusal, naming the config key behind the field it names first ({@code memoryBytes must …}). */
    private static IllegalArgumentException invalid(String what, Map<String, String> keys, IllegalArgumentException e) {
        String message = e.getMessage();
        String field = message.contains(" ") ? message.substring(0, message.indexOf(' ')) : message;
        return new IllegalArgumentException(what + message
                + (keys.containsKey(field) ? " (config key " + keys.get(field) + ")" : ""), e);
    }

    public LimitsConfig(Duration timeout, Duration cpuTime, ByteSize memory, int processes, ByteSize outputBytes,
            ByteSize fileBytes, boolean network) {
        this(timeout, cpuTime, memory, processes, outputBytes, fileBytes, network, null, null, null);
    }

    public LimitsConfig(Duration timeout, Duration cpuTime, ByteSize memory, int processes, ByteSize outputBytes,
            ByteSize fileBytes, boolean network, Duration compileTimeout, ByteSize compileMemory) {
        this(timeout, cpuTime, memory, processes, outputBytes, fileBytes, network, compileTimeout, compileMemory, null);
    }

    private static ResourceLimits compile(Duration timeout, ByteSize memory) {
        return ResourceLimits.compileDefaults().withCpuTime(timeout).withWallTime(timeout).withMemoryBytes(memory.bytes());
    }

    /** What a compile stage may consume unless a request says otherwise: {@link ResourceLimits#compileDefaults()} with these. */
    public ResourceLimits compileLimits() {
        return compile(compileTimeout, compileMemory);
    }

    public static LimitsConfig defaults() {
        ResourceLimits d = ResourceLimits.defaults();
        ResourceLimits c = ResourceLimits.compileDefaults();
        return new LimitsConfig(d.wallTime(), null, new ByteSize(d.memoryBytes()), d.maxProcesses(),
                new ByteSize(d.maxOutputBytes()), new ByteSize(d.maxFileBytes()), d.network(), c.wallTime(),
                new ByteSize(c.memoryBytes()), DEFAULT_MAX_WALL);
    }

    /**
     * The limits as the domain's value; always valid, since they were checked when read. The CPU limit is the
     * configured one, or the wall limit when none is configured.
     */
    public ResourceLimits toResourceLimits() {
        return new ResourceLimits(timeout, cpuTime == null ? timeout : cpuTime, memory.bytes(), processes, outputBytes.bytes(), fileBytes.bytes(), network);
    }
}
