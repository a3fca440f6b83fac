package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The process tier's fast path, held to the same suites unchanged: every Python program forked from the zygote
 * ({@code sandbox.process.zygote: all}); closing each suite's sandbox checks that they were. Needs root,
 * bubblewrap and control groups (skipped without, failed under {@code CI=true}).
 */
@Tag("slow")
class ProcessZygoteIT {

    /** A batch's samples: the candidate forked by the zygote, its judge by the batch's judge server. */
    @Nested
    class BatchJudged {

        @RegisterExtension
        static final ProcessFixture tier = ProcessFixture.zygote("codeagent-zygote-batch-").onAWholeHost();

        /** The two take turns: both on one CPU, a turn costs ~8 µs instead of ~54 (docs/benchmarks.md). */
        @Test
        void aSamplesCandidateAndJudgeShareOneCpu() {
            for (int i = 0; i < 4; i++) {
                Execution e = tier.sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON,
                        "import os\ndef cpus():\n    return sorted(os.sched_getaffinity(0))\n"), "", List.of(),
                        ResourceLimits.defaults(), new JudgeJob("import os\nmine = sorted(os.sched_getaffinity(0))\n"
                                + "assert len(mine) == 1 and cpus() == mine, (cpus(), mine)\n", null, List.of("cpus"))
                                .inBatch("pinned")));
                assertThat(e.judgement()).as(String.valueOf(e)).isNotNull();
                assertThat(e.judgement().passed()).as(e.judgement().message()).isTrue();
            }
            assertThat(tier.sandbox().diagnostics().batchJudged()).as("judged by the batch's server").isPositive();
        }

        /**
         * The judge sends a run of literal asserts ahead of the tests: after the first fails, the candidate is already
         * computing the second, which never ends. One process would have stopped at the failure: the run ends there
         * too, with the failed assertion, not after the time limit with it.
         */
        @Test
        void aWrongAnswerEndsTheRunThoughACallSentAheadNeverEnds() {
            ResourceLimits limits = ResourceLimits.defaults().withWallTime(java.time.Duration.ofSeconds(30))
                    .withCpuTime(java.time.Duration.ofSeconds(30));
            Execution e = tier.sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "def f(x):\n    while x == 2:\n        pass\n    return x\n"), "", List.of(), limits,
                    new JudgeJob("def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(2) == 3\n"
                            + "    assert candidate(3) == 4\n\n\ncheck(f)\n", null, List.of("f")).inBatch("ahead")));

            assertThat(e.judgement()).as(String.valueOf(e)).isNotNull();
            assertThat(e.judgement().outcome()).as(e.judgement().message()).isEqualTo(JudgeReport.Outcome.ASSERTION);
            assertThat(e.judgement().calls()).containsExactly("f(1) returned 1");
            assertThat(e.outcome()).as(e.detail()).isEqualTo(Outcome.OK);
            assertThat(e.detail()).contains("once the judge had decided");
            assertThat(e.wallTime()).as("ended at the verdict, not at the limit").isLessThan(java.time.Duration.ofSeconds(15));
        }
    }

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
