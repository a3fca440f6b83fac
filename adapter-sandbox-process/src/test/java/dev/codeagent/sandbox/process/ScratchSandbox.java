package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.spi.IsolationMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A process sandbox over a private work root of its own, for one suite ({@link ProcessFixture}): the root is where the
 * attack tests look for leftovers, and closing checks which start path the runs really took.
 */
final class ScratchSandbox {

    /**
     * Runs enough that some must have found a sandbox started ahead; a test that failed is run again alone in
     * a new sandbox (failsafe's rerun), which warms up only from its second run.
     */
    private static final long WHOLE_CLASS = 8;

    final Path workRoot;
    final ProcessSandbox sandbox;
    private final boolean preStarting;
    private final boolean forking;

    private ScratchSandbox(Path workRoot, ProcessSandbox sandbox, boolean preStarting, boolean forking) {
        this.workRoot = workRoot;
        this.sandbox = sandbox;
        this.preStarting = preStarting;
        this.forking = forking;
    }

    /** A sandbox with the default pre-starting, or with none when {@code preStarting} is false. */
    static ScratchSandbox start(String prefix, boolean preStarting) throws IOException {
        Path root = Files.createTempDirectory(prefix,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        ProcessSandboxConfig config = new ProcessSandboxConfig(null, null, null, root.toString());
        ProcessSandbox sandbox = preStarting
                ? new ProcessSandbox(config, IsolationMode.BEST_EFFORT)
                : new ProcessSandbox(config, IsolationMode.BEST_EFFORT, 0);
        return new ScratchSandbox(root, sandbox, preStarting, false);
    }

    /**
     * A sandbox that forks every Python program from its zygote (mode {@code all}, nothing pre-started); closing
     * checks that Python programs really were forked.
     */
    static ScratchSandbox forking(String prefix) throws IOException {
        HostSupport.requireRootBwrapAndCgroups();
        Path root = Files.createTempDirectory(prefix,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        ProcessSandboxConfig config = new ProcessSandboxConfig(null, null, null, root.toString(), "all");
        return new ScratchSandbox(root, new ProcessSandbox(config, IsolationMode.BEST_EFFORT, 0), false, true);
    }

    /** Closes the sandbox, removes the root, and checks the runs took the start path this sandbox was made for. */
    void stop() throws IOException {
        long preStarted = sandbox.diagnostics().preStarted();
        long executions = sandbox.diagnostics().executions();
        sandbox.close();
        WorkDir.delete(workRoot);
        if (forking) {
            assertThat(sandbox.diagnostics().forked()).as("executions forked from the zygote").isPositive();
        }
        if (sandbox.mode() == Mode.BWRAP) {
            if (preStarting && executions >= WHOLE_CLASS) {
                assertThat(preStarted).as("executions that ran in a pre-started sandbox").isPositive();
            } else {
                assertThat(preStarted).as("executions that ran in a pre-started sandbox").isZero();
            }
        }
    }
}
