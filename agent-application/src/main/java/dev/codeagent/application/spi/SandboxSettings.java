package dev.codeagent.application.spi;

import dev.codeagent.domain.execution.ResourceLimits;
import java.util.Objects;

/**
 * The sandbox settings every tier shares (the core config's {@code sandbox.isolation} and
 * {@code limits.*}), handed to a {@link SandboxProvider} next to its own section.
 *
 * @param isolation how much isolation to insist on
 * @param baseLimits the default limits of an execution (e.g. what a warm pool is prepared for);
 *     already checked against the domain's ranges
 */
public record SandboxSettings(IsolationMode isolation, ResourceLimits baseLimits) {

    public SandboxSettings {
        Objects.requireNonNull(isolation, "isolation");
        Objects.requireNonNull(baseLimits, "baseLimits");
    }
}
