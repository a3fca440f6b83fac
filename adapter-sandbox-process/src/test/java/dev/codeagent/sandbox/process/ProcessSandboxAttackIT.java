package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * Every row of the threat table against the process tier, checked from the host afterwards. After the
 * second execution runs start in pre-started sandboxes (the bootstrap sets the rlimits).
 */
@Tag("slow")
class ProcessSandboxAttackIT extends SandboxAttackTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.start("codeagent-attack-root-", true);
    }

    @AfterAll
    static void stop() throws Exception {
        scratch.stop();
    }

    @Override
    protected Sandbox sandbox() {
        return scratch.sandbox;
    }

    @Override
    protected List<Path> hostScratchDirs() {
        return List.of(scratch.workRoot);
    }
}
