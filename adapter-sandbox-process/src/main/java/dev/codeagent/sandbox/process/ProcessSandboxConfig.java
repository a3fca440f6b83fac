package dev.codeagent.sandbox.process;

import dev.codeagent.application.spi.ConfigSection;

/**
 * Settings of the process tier: config section {@code sandbox.process}.
 *
 * @param python the Python interpreter binary, or null to find one on the PATH (resolving shims)
 * @param node the Node.js binary, or null to find one
 * @param bash the Bash binary, or null to find one
 * @param workRoot where private work directories are made, or null for the system temp directory
 */
public record ProcessSandboxConfig(String python, String node, String bash, String workRoot) {

    /** Where these settings live in the config. */
    public static final ConfigSection<ProcessSandboxConfig> SECTION =
            new ConfigSection<>("sandbox.process", ProcessSandboxConfig.class, defaults());

    public static ProcessSandboxConfig defaults() {
        return new ProcessSandboxConfig(null, null, null, null);
    }
}
