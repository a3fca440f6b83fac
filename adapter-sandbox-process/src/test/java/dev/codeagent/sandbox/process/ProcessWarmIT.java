package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
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
}
