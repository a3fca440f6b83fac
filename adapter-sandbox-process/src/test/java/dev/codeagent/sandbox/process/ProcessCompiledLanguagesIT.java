package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Compiled languages on the process tier: the host's toolchains, seen through the sandbox's view of /usr. */
@Tag("slow")
class ProcessCompiledLanguagesIT extends CompiledLanguagesContractTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.start("codeagent-compiled-", true);
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
