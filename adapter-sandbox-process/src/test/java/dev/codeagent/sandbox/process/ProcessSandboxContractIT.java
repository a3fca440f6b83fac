package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.config.ProcessSandboxConfig;
import dev.codeagent.application.config.SandboxConfig.IsolationMode;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The sandbox contract against the process tier, with the best isolation this host allows. */
@Tag("slow")
class ProcessSandboxContractIT extends SandboxContractTest {

    private static Path workRoot;
    private static ProcessSandbox sandbox;

    @BeforeAll
    static void start() throws Exception {
        workRoot = Files.createTempDirectory("codeagent-contract-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        sandbox = new ProcessSandbox(new ProcessSandboxConfig(null, null, null, workRoot.toString()), IsolationMode.BEST_EFFORT);
    }

    @AfterAll
    static void stop() throws Exception {
        long preStarted = sandbox.preStartedExecutions();
        sandbox.close();
        WorkDir.delete(workRoot);
        if (sandbox.mode() == Mode.BWRAP) {
            assertThat(preStarted).as("executions that ran in a pre-started sandbox").isPositive();
        }
    }


    @Override
    protected Sandbox sandbox() {
        return sandbox;
    }
}
