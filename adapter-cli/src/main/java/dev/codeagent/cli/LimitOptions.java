package dev.codeagent.cli;

import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** {@code --timeout} and {@code --memory}: per-execution limits, given as config overrides ({@code limits.*}). */
final class LimitOptions {

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "Wall-clock and CPU time the program may use, e.g. 500ms, 5s, 2m (default: limits.timeout, 10s).")
    Duration timeout;

    @Option(names = "--memory", paramLabel = "SIZE", converter = Converters.SizeConverter.class,
            description = "Memory the program may use, e.g. 64m, 256m, 1g; at least 16m (default: limits.memory, 256m).")
    Long memory;

    /**
     * The flags as overrides of a task's limits, which win over a task file's; {@code --timeout} sets the
     * CPU limit too, so a long timeout is not cut short by it.
     */
    LimitOverrides requested() {
        LimitOverrides o = LimitOverrides.NONE;
        if (timeout != null) {
            o = o.withTimeout(timeout).withCpuTime(timeout);
        }
        if (memory != null) {
            o = o.withMemoryBytes(memory);
        }
        return o;
    }

    /**
     * The flags as dotted config keys as well: the sandbox is built from the configured limits (the docker
     * tier's warm containers are made for them), so it should be built for what this command runs with.
     */
    Map<String, String> overrides() {
        Map<String, String> o = new LinkedHashMap<>();
        if (timeout != null) {
            o.put("limits.timeout", Units.formatDuration(timeout));
            o.put("limits.cpuTime", Units.formatDuration(timeout));
        }
        if (memory != null) {
            o.put("limits.memory", Long.toString(memory));
        }
        return o;
    }

    /**
     * The configured limits, with the CPU limit lowered to the wall limit when larger.
     *
     * @throws UsageException when they are out of the sandbox's ranges (e.g. {@code --memory 1m})
     */
    static ResourceLimits resolve(CodeAgentConfig config) {
        try {
            ResourceLimits limits = config.limits().toResourceLimits();
            return limits.withWallTime(limits.wallTime());
        } catch (IllegalArgumentException e) {
            throw new UsageException("invalid limits: " + e.getMessage());
        }
    }
}
