package dev.codeagent.sandbox.process;

import dev.codeagent.application.spi.ConfigSection;

/**
 * Settings of the process tier: config section {@code sandbox.process}.
 *
 * @param python the Python interpreter binary, or null to find one on the PATH (resolving shims)
 * @param node the Node.js binary, or null to find one
 * @param bash the Bash binary, or null to find one
 * @param workRoot where private work directories and compiled helpers are made (it must be this user's and
 *     writable by no one else), or null for {@code /var/lib/codeagent/process-sandbox} as root, else
 *     {@code <java.io.tmpdir>/codeagent-UID}
 * @param zygote which Python programs are forked from a pre-started interpreter (the zygote) instead of starting
 *     a sandbox and an interpreter each: {@code batch} (the default: an evaluation's judged samples), {@code all}
 *     (every Python program), {@code off}; each forked program still gets its own uid, namespaces, control groups,
 *     rlimits and seccomp filter
 */
public record ProcessSandboxConfig(String python, String node, String bash, String workRoot, String zygote) {

    /** The values {@link #zygote} takes. */
    public static final java.util.List<String> ZYGOTE_MODES = java.util.List.of("batch", "all", "off");

    public ProcessSandboxConfig {
        if (zygote != null && !ZYGOTE_MODES.contains(zygote)) {
            throw new IllegalArgumentException("sandbox.process.zygote must be one of " + ZYGOTE_MODES + ", was '" + zygote + "'");
        }
    }

    /** Settings with the default zygote ({@code batch}). */
    public ProcessSandboxConfig(String python, String node, String bash, String workRoot) {
        this(python, node, bash, workRoot, null);
    }

    /** The zygote mode in force: {@code batch} when none was set. */
    public String zygoteMode() {
        return zygote == null ? "batch" : zygote;
    }

    /** These settings with another zygote mode. */
    public ProcessSandboxConfig withZygote(String mode) {
        return new ProcessSandboxConfig(python, node, bash, workRoot, mode);
    }

    /** Where these settings live in the config. */
    public static final ConfigSection<ProcessSandboxConfig> SECTION =
            new ConfigSection<>("sandbox.process", ProcessSandboxConfig.class, defaults())
                    .withFile("workRoot").withCommand("python").withCommand("node").withCommand("bash");

    public static ProcessSandboxConfig defaults() {
        return new ProcessSandboxConfig(null, null, null, null);
    }
}
