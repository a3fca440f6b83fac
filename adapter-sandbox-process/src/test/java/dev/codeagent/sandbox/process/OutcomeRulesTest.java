package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.sandbox.process.OutcomeRules.Kill;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutcomeRulesTest {

    private final ResourceLimits limits = ResourceLimits.defaults().withCpuTime(Duration.ofSeconds(2));

    private Outcome of(Kill kill, Integer exit, Integer signal, String stderr) {
        return OutcomeRules.classify(kill, exit, signal, "", stderr, false, false, null, limits).outcome();
    }

    @Test
    void exitZeroIsOk() {
        assertThat(of(null, 0, null, "")).isEqualTo(Outcome.OK);
    }

    @Test
    void theSandboxsOwnKillsNameTheLimit() {
        assertThat(of(Kill.WALL_TIME, null, 9, "")).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(of(Kill.OUTPUT, null, 9, "")).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(of(Kill.CLOSED, null, 9, "")).isEqualTo(Outcome.SANDBOX_ERROR);
    }

    @Test
    void anOverflowedStreamIsAnOutputLimitEvenIfTheProgramExitedFirst() {
        assertThat(OutcomeRules.classify(null, 0, null, "", "", true, false, null, limits).outcome())
                .isEqualTo(Outcome.OUTPUT_LIMIT);
    }

    @Test
    void cpuLimitSignalsAreTimeLimits() {
        assertThat(of(null, null, OutcomeRules.SIGXCPU, "")).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(OutcomeRules.classify(null, null, 9, "", "", false, false, Duration.ofMillis(2500), limits).outcome())
                .isEqualTo(Outcome.TIME_LIMIT);
        assertThat(OutcomeRules.classify(null, null, 9, "", "", false, false, Duration.ofMillis(100), limits).outcome())
                .isEqualTo(Outcome.RUNTIME_ERROR);
    }

    @Test
    void fileSizeLimitIsAnOutputLimit() {
        assertThat(of(null, null, OutcomeRules.SIGXFSZ, "")).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(of(null, 1, null, "OSError: [Errno 27] File too large")).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(of(null, 1, null, "OSError: [Errno 28] No space left on device")).isEqualTo(Outcome.OUTPUT_LIMIT);
    }

    @Test
    void memoryErrorsAreMemoryLimitsNotRuntimeErrors() {
        assertThat(of(null, 1, null, "Traceback (most recent call last):\n  File \"main.py\", line 1\nMemoryError\n"))
                .isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(of(null, 134, null, "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"))
                .isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(of(null, 1, null, "Traceback\nValueError: bad\n")).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(of(null, 0, null, "MemoryError\n")).as("a clean exit is OK whatever it printed").isEqualTo(Outcome.OK);
    }

    @Test
    void otherFailuresAreRuntimeErrors() {
        assertThat(of(null, 3, null, "")).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(of(null, null, 11, "")).isEqualTo(Outcome.RUNTIME_ERROR);
    }

    @Test
    void aWrapperThatCouldNotStartIsASandboxError() {
        assertThat(of(null, 1, null, "bwrap: Can't mount proc on /newroot/proc: Operation not permitted")).isEqualTo(Outcome.SANDBOX_ERROR);
        assertThat(of(null, 127, null, "/usr/bin/time: cannot run /usr/bin/python3.11: No such file or directory"))
                .isEqualTo(Outcome.SANDBOX_ERROR);
        assertThat(of(null, 125, null, "codeagent-boot: OSError(28, 'No space left on device')")).isEqualTo(Outcome.SANDBOX_ERROR);
        assertThat(of(null, 2, null, "bwrap: the program printed this itself")).isEqualTo(Outcome.RUNTIME_ERROR);
    }

    @Test
    void statusesAbove128AreSignals() {
        assertThat(OutcomeRules.signalOf(137)).isEqualTo(9);
        assertThat(OutcomeRules.signalOf(152)).isEqualTo(24);
        assertThat(OutcomeRules.signalOf(1)).isNull();
        assertThat(OutcomeRules.signalOf(128)).isNull();
        assertThat(OutcomeRules.signalOf(200)).isNull();
    }
}
