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
 * @param compileLimits the default limits of a compiled language's compile stage ({@code limits.compileTimeout},
 *     {@code limits.compileMemory}): what a tier may keep containers ready for
 */
public record SandboxSettings(IsolationMode isolation, ResourceLimits baseLimits, ResourceLimits compileLimits) {

    public SandboxSettings {
        Objects.requireNonNull(isolation, "isolation");
        Objects.requireNonNull(baseLimits, "baseLimits");
        Objects.requireNonNull(compileLimits, "compileLimits");
    }

    /** The settings with {@link ResourceLimits#compileDefaults()} for compile stages. */
    public SandboxSettings(IsolationMode isolation, ResourceLimits baseLimits) {
        this(isolation, baseLimits, ResourceLimits.compileDefaults());
    }
}
