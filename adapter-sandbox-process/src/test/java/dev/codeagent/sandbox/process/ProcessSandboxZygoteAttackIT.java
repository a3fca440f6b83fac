package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The threat table against the process tier's fast path, unchanged: every Python program forked from the zygote
 * ({@code sandbox.process.zygote: all}); closing checks that they were.
 */
@Tag("slow")
class ProcessSandboxZygoteAttackIT extends SandboxAttackTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.forking("codeagent-zygote-attack-");
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

    @Override
    protected List<Path> hostScratchDirs() {
        return List.of(scratch.workRoot);
    }
}
