package dev.codeagent.cli;

import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.LimitField;
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
            description = "Wall-clock time the program may use, and its CPU time unless limits.cpuTime is set lower,"
                    + " e.g. 500ms, 5s, 2m (default: limits.timeout, 10s).")
    Duration timeout;

    @Option(names = "--memory", paramLabel = "SIZE", converter = Converters.SizeConverter.class,
            description = "Memory the program may use, e.g. 64m, 256m, 1g; at least 16m (default: limits.memory, 256m).")
    Long memory;

    /**
     * The flags as overrides of a task's limits, which win over a task file's. {@code --timeout} is the wall limit
     * only: a CPU limit given explicitly (the task file's {@code cpuTimeMs}, {@code limits.cpuTime}) is never raised
     * by it, and one left unset follows it already through the configured defaults ({@link #overrides}).
     */
    LimitOverrides requested() {
        LimitOverrides o = LimitOverrides.NONE;
        if (timeout != null) {
            o = o.withTimeout(timeout);
        }
        if (memory != null) {
            o = o.withMemoryBytes(memory);
        }
        return o;
    }

    /**
     * The flags as dotted config keys as well: the sandbox is built from the configured limits (the docker
     * tier's warm containers are made for them), so it should be built for what this command runs with.
     * {@code --timeout} sets {@code limits.timeout} alone: an unset {@code limits.cpuTime} follows it, a set one
     * stays (and {@link #resolve} lowers it to the timeout when larger), so the tighter of the two wins.
     */
    Map<String, String> overrides() {
        Map<String, String> o = new LinkedHashMap<>();
        if (timeout != null) {
            o.put("limits.timeout", Units.formatDuration(timeout));
        }
        if (memory != null) {
            o.put("limits.memory", Long.toString(memory));
        }
        return o;
    }

    /** The command line's door: the sandbox's ranges, time capped at the configured ceiling {@code limits.maxWallTime}. */
    static InputPolicy policy(CodeAgentConfig config) {
        long ceiling = config.limits().maxWallTime().toMillis();
        return InputPolicy.local()
                .cap(LimitField.TIMEOUT, ceiling, "limits.maxWallTime")
                .cap(LimitField.CPU_TIME, ceiling, "limits.maxWallTime");
    }

    /**
     * Refuses a {@code --timeout} past the ceiling in the user's own words, before it becomes the config key
     * {@code limits.timeout} (whose error would name a key the user never typed).
     *
     * @param ceiling the configured {@code limits.maxWallTime}, from the config without this command's flags
     */
    void checkAgainst(Duration ceiling) {
        if (timeout != null && timeout.compareTo(ceiling) > 0) {
            throw new UsageException("--timeout " + Units.formatDuration(timeout) + ": longer than the ceiling "
                    + Units.formatDuration(ceiling) + " (limits.maxWallTime; raise it in config or with --set limits.maxWallTime="
                    + Units.formatDuration(timeout) + ", at most " + Units.formatDuration(ResourceLimits.MAX_WALL) + ")");
        }
        if (timeout != null && timeout.toMillis() < 1) {
            throw new UsageException("--timeout " + Units.formatDuration(timeout) + ": must be at least 1ms");
        }
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
