package dev.codeagent.application.config;

import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The default resource limits of an execution, and of a compiled language's compile stage ({@code compileTimeout}
 * wall and CPU, {@code compileMemory}); requests may lower or raise them per run. Checked
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
        ByteSize compileMemory) {

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
        Objects.requireNonNull(cpuTime, "limits.cpuTime");
        Objects.requireNonNull(memory, "limits.memory");
        Objects.requireNonNull(outputBytes, "limits.outputBytes");
        Objects.requireNonNull(fileBytes, "limits.fileBytes");
        try {
            new ResourceLimits(timeout, cpuTime, memory.bytes(), processes, outputBytes.bytes(), fileBytes.bytes(), network);
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

    /** The domain's refusal, naming the config key behind the field it names first ({@code memoryBytes must …}). */
    private static IllegalArgumentException invalid(String what, Map<String, String> keys, IllegalArgumentException e) {
        String message = e.getMessage();
        String field = message.contains(" ") ? message.substring(0, message.indexOf(' ')) : message;
        return new IllegalArgumentException(what + message
                + (keys.containsKey(field) ? " (config key " + keys.get(field) + ")" : ""), e);
    }

    public LimitsConfig(Duration timeout, Duration cpuTime, ByteSize memory, int processes, ByteSize outputBytes,
            ByteSize fileBytes, boolean network) {
        this(timeout, cpuTime, memory, processes, outputBytes, fileBytes, network, null, null);
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
        return new LimitsConfig(d.wallTime(), d.cpuTime(), new ByteSize(d.memoryBytes()), d.maxProcesses(),
                new ByteSize(d.maxOutputBytes()), new ByteSize(d.maxFileBytes()), d.network(), c.wallTime(),
                new ByteSize(c.memoryBytes()));
    }

    /** The limits as the domain's value; always valid, since they were checked when read. */
    public ResourceLimits toResourceLimits() {
        return new ResourceLimits(timeout, cpuTime, memory.bytes(), processes, outputBytes.bytes(), fileBytes.bytes(), network);
    }
}
