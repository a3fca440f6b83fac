package dev.codeagent.sandbox.process;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;

/**
 * The process tier as {@code sandbox.kind: process}. Nothing is probed here: the sandbox is built
 * (and the host probed) only when the kind picks it.
 */
public final class ProcessSandboxProvider implements SandboxProvider<ProcessSandboxConfig> {

    public static final String KEY = "process";

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public ConfigSection<ProcessSandboxConfig> config() {
        return ProcessSandboxConfig.SECTION;
    }

    @Override
    public Sandbox create(ProcessSandboxConfig own, SandboxSettings shared) {
        return new ProcessSandbox(own, shared.isolation());
    }
}
