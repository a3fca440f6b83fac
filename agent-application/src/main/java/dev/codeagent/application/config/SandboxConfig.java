package dev.codeagent.application.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Which sandbox runs code and how strictly.
 *
 * @param kind the sandbox adapter's key ({@code process}, {@code docker})
 * @param isolation {@code strict}: refuse to start unless every isolation feature of the tier is in
 *     force; {@code best-effort}: start with what the host allows and report it
 * @param maxSourceBytes largest program accepted (source plus extra files)
 * @param maxConcurrent executions running at once; more wait up to {@code maxQueueWait}, then are refused
 * @param maxQueueWait how long an execution may wait for one of the {@code maxConcurrent} places
 * @param process settings of the process tier
 * @param docker settings of the docker tier
 */
public record SandboxConfig(
        String kind,
        IsolationMode isolation,
        ByteSize maxSourceBytes,
        int maxConcurrent,
        java.time.Duration maxQueueWait,
        ProcessSandboxConfig process,
        DockerSandboxConfig docker) {

    /** How much isolation to insist on. */
    public enum IsolationMode {
        @JsonProperty("strict")
        STRICT,
        @JsonProperty("best-effort")
        BEST_EFFORT
    }

    public SandboxConfig {
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("sandbox.maxConcurrent must be at least 1, was " + maxConcurrent);
        }
    }

    public static SandboxConfig defaults() {
        return new SandboxConfig("process", IsolationMode.BEST_EFFORT, ByteSize.ofMiB(1),
                Math.max(2, Runtime.getRuntime().availableProcessors() * 2), java.time.Duration.ofSeconds(30),
                ProcessSandboxConfig.defaults(), DockerSandboxConfig.defaults());
    }
}
