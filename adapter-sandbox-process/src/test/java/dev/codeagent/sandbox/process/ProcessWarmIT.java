package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.application.sandbox.MemoryHogs;
import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.application.sandbox.SandboxMemoryVerdictTest;
import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The process tier with pre-started sandboxes, the default and the best isolation this host allows: after the
 * second execution runs start in sandboxes started ahead (the bootstrap sets the rlimits; the group made at
 * pre-start is retargeted to the request's limits). Each suite has a sandbox of its own ({@link ProcessFixture}).
 */
@Tag("slow")
class ProcessWarmIT {

    /** The sandbox contract. */
    @Nested
    class Contract extends SandboxContractTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.warm("codeagent-contract-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** Compiled languages: the host's toolchains, seen through the sandbox's view of /usr. */
    @Nested
    class CompiledLanguages extends CompiledLanguagesContractTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.warm("codeagent-compiled-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** Every row of the threat table, checked from the host afterwards. */
    @Nested
    class Attack extends SandboxAttackTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.warm("codeagent-attack-root-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected List<Path> hostScratchDirs() {
            return tier.hostScratchDirs();
        }
    }

    /** The whole-run attacks; the tier must claim the whole-run guarantees where the host has them. */
    @Nested
    class WholeRunAttack extends SandboxWholeRunAttackTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.warm("codeagent-wholerun-root-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected List<Path> hostScratchDirs() {
            return tier.hostScratchDirs();
        }

        @Test
        void claimsTheWholeRunGuaranteesWhereTheHostHasThem() {
            tier.assertClaimsTheWholeRunGuarantees();
        }
    }

    /** The verdict a contest user expects of a program that touches 1 GiB under 256 MiB, in every language. */
    @Nested
    class MemoryVerdict extends SandboxMemoryVerdictTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.warm("codeagent-warmmem-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        /**
         * The pre-started path itself: its group is made before the job and retargeted to the run's limit, so the
         * watch must read the limit the run has, not the one it was made with. The compiled languages alternate the
         * compile stage's limits with the run's, so the suite alone may never find a sandbox started for the run's.
         */
        @Test
        void aPreStartedSandboxEndsTheHogAsTheMemoryLimitToo() throws InterruptedException {
            long before = tier.sandbox().diagnostics().preStarted();
            for (int i = 0; i < 4 && tier.sandbox().diagnostics().preStarted() == before; i++) {
                Thread.sleep(1_000);
                Execution e = tier.sandbox().execute(new ExecutionRequest(MemoryHogs.program(Language.PYTHON), "", limits()));
                assertThat(e.outcome()).as(e.detail()).isEqualTo(Outcome.MEMORY_LIMIT);
            }
            assertThat(tier.sandbox().diagnostics().preStarted()).as("a run took a pre-started sandbox").isGreaterThan(before);
        }
    }
}
