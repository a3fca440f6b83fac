package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Outcome;
import org.junit.jupiter.api.Test;

class OutcomeRulesTest {

    private static final long MIB = 1024 * 1024;

    private static OutcomeRules.Verdict classify(Integer exit, Integer signal, boolean oom, boolean cpu, String stderr) {
        return OutcomeRules.classify(new OutcomeRules.Ending(exit, signal, oom, cpu, stderr), 256 * MIB, 16 * MIB, 64 * MIB);
    }

    @Test
    void exitZeroIsOk() {
        assertThat(classify(0, null, false, false, "").outcome()).isEqualTo(Outcome.OK);
    }

    @Test
    void anOomKillIsAMemoryLimit() {
        OutcomeRules.Verdict v = classify(null, 9, true, false, "");
        assertThat(v.outcome()).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(v.signal()).isEqualTo(9);
        assertThat(v.detail()).contains("256 MiB");
    }

    @Test
    void aProgramThatSurvivedAnOomKillOfAChildAndExitedZeroIsOk() {
        assertThat(classify(0, null, true, false, "").outcome()).isEqualTo(Outcome.OK);
    }

    @Test
    void memoryErrorIsAMemoryLimit() {
        assertThat(classify(1, null, false, false, "Traceback (most recent call last):\n  File \"main.py\"\nMemoryError\n").outcome())
                .isEqualTo(Outcome.MEMORY_LIMIT);
    }

    @Test
    void cpuLimitSignalsAreTimeLimits() {
        assertThat(classify(null, 24, false, true, "").outcome()).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(classify(null, 9, false, true, "").outcome()).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(classify(null, 9, false, false, "").outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
    }

    @Test
    void fileSizeAndFullDiskAreOutputLimits() {
        assertThat(classify(1, null, false, false, "OSError: [Errno 27] File too large\n").outcome()).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(classify(null, 25, false, false, "").outcome()).isEqualTo(Outcome.OUTPUT_LIMIT);
        OutcomeRules.Verdict full = classify(1, null, false, false, "OSError: [Errno 28] No space left on device\n");
        assertThat(full.outcome()).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(full.detail()).contains("64 MiB");
    }

    @Test
    void otherFailuresAreRuntimeErrorsWithTheirStatusOrSignal() {
        OutcomeRules.Verdict exit = classify(3, null, false, false, "");
        assertThat(exit.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(exit.exitCode()).isEqualTo(3);
        OutcomeRules.Verdict segv = classify(null, 11, false, false, "");
        assertThat(segv.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(segv.exitCode()).isNull();
        assertThat(segv.signal()).isEqualTo(11);
    }

    @Test
    void aMemoryErrorEarlierInTheOutputDoesNotMisleadTheVerdict() {
        String stderr = "caught MemoryError and went on\n" + "x\n".repeat(10) + "ValueError: boom\n";
        assertThat(classify(1, null, false, false, stderr).outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
    }
}
