package dev.codeagent.application.spi;

import dev.codeagent.domain.execution.Sandbox;

/**
 * A sandbox tier a distribution may contain, chosen by {@code sandbox.kind}. Found with
 * {@link java.util.ServiceLoader}: list the implementing class in
 * {@code META-INF/services/dev.codeagent.application.spi.SandboxProvider}; it needs a public no-argument
 * constructor and must do no I/O until {@link #create} — a provider is loaded even when another tier
 * is configured.
 *
 * @param <C> the type of the tier's own config section
 */
public interface SandboxProvider<C> {

    /** The value of {@code sandbox.kind} that picks this tier, e.g. {@code process}. */
    String key();

    /** The tier's own config section (e.g. {@code sandbox.process}), or {@link ConfigSection#NONE}. */
    ConfigSection<C> config();

    /**
     * Builds the sandbox; called at most once per composed application, only when this tier is configured.
     *
     * @param own the tier's section as configured (already validated)
     * @param shared what every tier is told: isolation mode and default limits
     * @throws dev.codeagent.domain.execution.SandboxUnavailableException when the tier cannot run on this host
     */
    Sandbox create(C own, SandboxSettings shared);
}
