package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Sandbox;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The judged-execution contract on the process tier for batch jobs (an evaluation's): every job's judge is a child
 * forked by one long-lived judge server, its candidate in a sandbox and uid of its own as for any judged run. The
 * whole contract holds there too: the attack corpus, unreadable tests, early ends, an endless judge, references.
 */
@Tag("slow")
class ProcessBatchJudgedContractIT extends JudgedSandboxContractTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        scratch = ScratchSandbox.start("codeagent-batch-judged-", false);
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
    protected Execution judge(String code, JudgeJob job) {
        return super.judge(code, job.inBatch("contract"));
    }

    @Test
    void aBatchJobIsJudgedByTheBatchsServer() {
        long before = scratch.sandbox.diagnostics().batchJudged();
        Execution e = judge("def f():\n    return 1\n", new JudgeJob("assert f() == 1\n", null, List.of("f")));
        assertThat(e.judgement()).isNotNull();
        assertThat(e.judgement().passed()).isTrue();
        assertThat(scratch.sandbox.diagnostics().batchJudged()).as("judged by the server, not by a judge of its own")
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
