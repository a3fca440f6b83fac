package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The judged-execution contract on the process tier: candidate and judge in two sandboxes, two uids. */
@Tag("slow")
class ProcessJudgedContractIT extends JudgedSandboxContractTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        scratch = ScratchSandbox.start("codeagent-judged-", false);
    }

    @AfterAll
    static void stop() throws Exception {
        if (scratch != null) {
            scratch.stop();
        }
    }

    @Override
    protected Sandbox sandbox() {
        return scratch.sandbox;
    }
}
