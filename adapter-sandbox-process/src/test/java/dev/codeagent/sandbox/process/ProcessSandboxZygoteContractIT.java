package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The sandbox contract against the process tier's fast path, unchanged: every Python program forked from the zygote
 * ({@code sandbox.process.zygote: all}); closing checks that they were.
 */
@Tag("slow")
class ProcessSandboxZygoteContractIT extends SandboxContractTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.forking("codeagent-zygote-contract-");
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
