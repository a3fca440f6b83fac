package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxMemoryVerdictTest;
import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.application.session.SessionSandboxContractTest;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.SessionSandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The process tier with no pre-started sandbox: every run cold (its group made for it and joined by the launcher,
 * its rlimits set by prlimit). Judged runs and sessions, which never take the pre-started path, are tested here.
 * Each suite has a sandbox of its own ({@link ProcessFixture}).
 */
@Tag("slow")
class ProcessColdIT {

    /** The judged-execution contract: candidate and judge in two sandboxes, two uids. */
    @Nested
    class Judged extends JudgedSandboxContractTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.cold("codeagent-judged-").onAWholeHost();

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /**
     * The judged-execution contract for batch jobs (an evaluation's): every job's judge is a child forked by one
     * long-lived judge server, its candidate in a sandbox and uid of its own as for any judged run. The whole
     * contract holds there too: the attack corpus, unreadable tests, early ends, an endless judge, references.
     */
    @Nested
    class BatchJudged extends JudgedSandboxContractTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.cold("codeagent-batch-judged-").onAWholeHost();

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected Execution judge(String code, JudgeJob job) {
            return super.judge(code, job.inBatch("contract"));
        }

        @Test
        void aBatchJobIsJudgedByTheBatchsServer() {
            long before = tier.sandbox().diagnostics().batchJudged();
            Execution e = judge("def f():\n    return 1\n", new JudgeJob("assert f() == 1\n", null, List.of("f")));
            assertThat(e.judgement()).isNotNull();
            assertThat(e.judgement().passed()).isTrue();
            assertThat(tier.sandbox().diagnostics().batchJudged()).as("judged by the server, not by a judge of its own")
                    .isEqualTo(before + 1);
        }

        /** A candidate sees its own channel and the scripts, never the server's directory of every job's channels. */
        @Test
        void aCandidateCannotSeeTheOtherJobsChannels() {
            String code = "import os\n"
                    + "def seen():\n"
                    + "    found = []\n"
                    + "    for top in ('/', '/.judge', '/.judge-lib'):\n"
                    + "        try:\n"
                    + "            found += [top + '/' + n for n in os.listdir(top)]\n"
                    + "        except OSError:\n"
                    + "            pass\n"
                    + "    return sorted(n for n in found if 'judge' in n)\n";
            Execution e = judge(code, new JudgeJob("got = seen()\nassert all('channels' not in n for n in got), got\n"
                    + "assert '//.judge' in got\n", null, List.of("seen")));
            assertThat(e.judgement()).as(String.valueOf(e)).isNotNull();
            assertThat(e.judgement().passed()).as(e.judgement().message()).isTrue();
        }

        @Override
        protected int sampleSize() {
            return 164;
        }
    }

    /**
     * Sessions: a real ipykernel behind the kernel bridge, in a bubblewrap sandbox, pool uid and control group of
     * its own, held to the session contract. The kernel is the host's Debian Python: it plots where the host has
     * python3-matplotlib.
     */
    @Nested
    class Session extends SessionSandboxContractTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.cold("codeagent-session-").onAWholeHost();

        @BeforeAll
        static void kernel() {
            assumeTrue(kernelAvailable("ipykernel, jupyter_client"),
                    "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        }

        @Override
        protected SessionSandbox sessions() {
            return tier.sandbox();
        }

        @Override
        protected boolean plots() {
            return kernelAvailable("matplotlib, matplotlib_inline");
        }
    }

    /** The threat table, with every execution started cold: prlimit sets the rlimits. */
    @Nested
    class Attack extends SandboxAttackTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.cold("codeagent-cold-attack-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        @Override
        protected List<Path> hostScratchDirs() {
            return tier.hostScratchDirs();
        }
    }

    /** The whole-run attacks, every run cold; the tier must claim the whole-run guarantees where the host has them. */
    @Nested
    class WholeRunAttack extends SandboxWholeRunAttackTest {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.cold("codeagent-coldrun-root-");

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
        static final ProcessFixture tier = ProcessFixture.cold("codeagent-coldmem-");

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }
}
