package dev.codeagent.application.spi;

import dev.codeagent.domain.execution.Sandbox;

/**
 * A sandbox tier as a factory: its key ({@code sandbox.kind}), its own config section, and how it is built. An adapter module's
 * {@link AdapterModule} builds its implementation through its provider, and a plain-Java embedder adds one with
 * {@code CodeAgent.builder(config).provider(...)} (it wins over a discovered adapter of the same key). Adapters on
 * the class path are found as {@link AdapterModule}s, not as providers. No I/O until {@code create}.
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
