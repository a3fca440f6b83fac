package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The sandbox contract against the process tier, with the best isolation this host allows. */
@Tag("slow")
class ProcessSandboxContractIT extends SandboxContractTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.start("codeagent-contract-", true);
    }

    @AfterAll
    static void stop() throws Exception {
        scratch.stop();
    }

    @Override
    protected Sandbox sandbox() {
        return scratch.sandbox;
    }
}
