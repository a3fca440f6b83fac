package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The threat table again, with every execution started cold (no pre-started sandboxes): prlimit sets the rlimits. */
@Tag("slow")
class ProcessSandboxColdAttackIT extends SandboxAttackTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.start("codeagent-cold-attack-", false);
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
