package dev.codeagent.sandbox.docker;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;

/**
 * The docker tier as {@code sandbox.kind: docker}, built from {@code sandbox.docker}, the isolation
 * mode and the default limits (what the warm pool is prepared for). Nothing touches the engine until
 * the sandbox is asked for.
 */
public final class DockerSandboxProvider implements SandboxProvider<DockerSandboxConfig> {

    @Override
    public String key() {
        return DockerSandbox.TIER;
    }

    @Override
    public ConfigSection<DockerSandboxConfig> config() {
        return DockerSandboxConfig.SECTION;
    }

    @Override
    public Sandbox create(DockerSandboxConfig own, SandboxSettings shared) {
        return DockerSandbox.create(own, shared.baseLimits(), shared.compileLimits(), shared.isolation());
    }
}
