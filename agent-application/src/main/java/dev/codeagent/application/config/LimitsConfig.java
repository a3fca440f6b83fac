package dev.codeagent.application.config;

import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;

/** The default resource limits of an execution; requests may lower or raise them per run. */
public record LimitsConfig(
        Duration timeout,
        Duration cpuTime,
        ByteSize memory,
        int processes,
        ByteSize outputBytes,
        ByteSize fileBytes,
        boolean network) {

    public static LimitsConfig defaults() {
        ResourceLimits d = ResourceLimits.defaults();
        return new LimitsConfig(d.wallTime(), d.cpuTime(), new ByteSize(d.memoryBytes()), d.maxProcesses(),
                new ByteSize(d.maxOutputBytes()), new ByteSize(d.maxFileBytes()), d.network());
    }

    /** @throws IllegalArgumentException when the values are out of the domain's ranges */
    public ResourceLimits toResourceLimits() {
        return new ResourceLimits(timeout, cpuTime, memory.bytes(), processes, outputBytes.bytes(), fileBytes.bytes(), network);
    }
}
