package dev.codeagent.application.config;

import dev.codeagent.application.spi.IsolationMode;
import java.time.Duration;
import java.util.Objects;

/**
 * Which sandbox runs code and how strictly: what every tier shares. Each tier's own settings are its
 * adapter's section ({@code sandbox.process.*}, {@code sandbox.docker.*}).
 *
 * @param kind the sandbox adapter's key ({@code process}, {@code docker})
 * @param isolation {@code strict}: refuse to start unless every isolation feature of the tier is in
 *     force; {@code best-effort}: start with what the host allows and report it
 * @param maxSourceBytes largest program accepted (source plus extra files)
 * @param maxConcurrent executions running at once; more wait up to {@code maxQueueWait}, then are refused
 * @param maxQueueWait how long an execution may wait for one of the {@code maxConcurrent} places
 */
public record SandboxConfig(
        String kind,
        IsolationMode isolation,
        ByteSize maxSourceBytes,
        int maxConcurrent,
        Duration maxQueueWait) {

    public SandboxConfig {
        Objects.requireNonNull(kind, "sandbox.kind");
        Objects.requireNonNull(isolation, "sandbox.isolation");
        Objects.requireNonNull(maxSourceBytes, "sandbox.maxSourceBytes");
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("sandbox.maxConcurrent must be at least 1, was " + maxConcurrent);
        }
        Objects.requireNonNull(maxQueueWait, "sandbox.maxQueueWait");
    }

    public static SandboxConfig defaults() {
        return new SandboxConfig("process", IsolationMode.BEST_EFFORT, ByteSize.ofMiB(1),
                Math.max(2, Runtime.getRuntime().availableProcessors() * 2), Duration.ofSeconds(30));
    }
}
