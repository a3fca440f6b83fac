package dev.codeagent.sandbox.process;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The process tier's fast path, held to the same suites unchanged: every Python program forked from the zygote
 * ({@code sandbox.process.zygote: all}); closing each suite's sandbox checks that they were. Needs root,
 * bubblewrap and control groups (skipped without, failed under {@code CI=true}).
 */
@Tag("slow")
class ProcessZygoteIT {

    /** The sandbox contract. */
    @Nested
    class Contract extends SandboxContractTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.zygote("codeagent-zygote-contract-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** The threat table. */
    @Nested
    class Attack extends SandboxAttackTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.zygote("codeagent-zygote-attack-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected List<Path> hostScratchDirs() {
            return tier.hostScratchDirs();
        }
    }

    /** The whole-run attacks. */
    @Nested
    class WholeRunAttack extends SandboxWholeRunAttackTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.zygote("codeagent-zygote-wholerunattack-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected List<Path> hostScratchDirs() {
            return tier.hostScratchDirs();
        }
    }
}
