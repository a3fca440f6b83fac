package dev.codeagent.sandbox.docker;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import jakarta.inject.Inject;
import jakarta.inject.Provider;

/** Builds the docker sandbox from {@code sandbox.docker}, {@code sandbox.isolation} and the default limits. */
final class DockerSandboxProvider implements Provider<Sandbox> {

    private final CodeAgentConfig config;

    @Inject
    DockerSandboxProvider(CodeAgentConfig config) {
        this.config = config;
    }

    @Override
    public Sandbox get() {
        ResourceLimits poolLimits;
        try {
            poolLimits = config.limits().toResourceLimits();
        } catch (IllegalArgumentException e) {
            poolLimits = ResourceLimits.defaults();
        }
        return DockerSandbox.create(config.sandbox().docker(), poolLimits, config.sandbox().isolation());
    }
}
