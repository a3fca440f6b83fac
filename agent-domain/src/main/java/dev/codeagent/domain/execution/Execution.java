package dev.codeagent.domain.execution;

import java.time.Duration;
import java.util.Objects;

/**
 * What happened when a program ran.
 *
 * @param outcome how it ended
 * @param exitCode the exit status, or null when it did not exit normally (killed, never started)
 * @param signal the number of the signal that ended it, or null
 * @param stdout what was kept of standard output
 * @param stderr what was kept of standard error
 * @param wallTime real time from start to end
 * @param cpuTime user + system CPU time of the program's processes, or null where the tier cannot measure it
 * @param peakMemoryBytes peak memory use, or null where the tier cannot measure it
 * @param detail a short human explanation of the outcome where there is one (which limit, why the sandbox
 *     failed), or null
 * @param isolation the sandbox that ran it and what isolation it achieved
 * @param judgement for a judged request, what the judge process reported over the sandbox's own channel; null
 *     when the request was not judged or the judge reported nothing (killed with the run, crashed)
 * @param output stdout and stderr together in the order they arrived (as a terminal shows them), or null where
 *     the tier did not record it; {@link #combinedOutput()} falls back to stdout then stderr
 * @param compile for a compiled language, how its compile stage ran (its stdout and stderr are the compiler's, its
 *     limits the compile limits); null for a language that runs from source. When the stage failed, this
 *     execution's outcome is {@link Outcome#COMPILATION_ERROR} and the program never ran
 */
public record Execution(
        Outcome outcome,
        Integer exitCode,
        Integer signal,
        CapturedOutput stdout,
        CapturedOutput stderr,
        Duration wallTime,
        Duration cpuTime,
        Long peakMemoryBytes,
        String detail,
        Isolation isolation,
        JudgeReport judgement,
        CapturedOutput output,
        Execution compile) {

    public Execution {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        Objects.requireNonNull(wallTime, "wallTime");
        Objects.requireNonNull(isolation, "isolation");
    }

    public Execution(Outcome outcome, Integer exitCode, Integer signal, CapturedOutput stdout, CapturedOutput stderr,
            Duration wallTime, Duration cpuTime, Long peakMemoryBytes, String detail, Isolation isolation) {
        this(outcome, exitCode, signal, stdout, stderr, wallTime, cpuTime, peakMemoryBytes, detail, isolation, null, null, null);
    }

    public Execution(Outcome outcome, Integer exitCode, Integer signal, CapturedOutput stdout, CapturedOutput stderr,
            Duration wallTime, Duration cpuTime, Long peakMemoryBytes, String detail, Isolation isolation,
            JudgeReport judgement) {
        this(outcome, exitCode, signal, stdout, stderr, wallTime, cpuTime, peakMemoryBytes, detail, isolation, judgement, null, null);
    }

    public Execution withJudgement(JudgeReport report) {
        return new Execution(outcome, exitCode, signal, stdout, stderr, wallTime, cpuTime, peakMemoryBytes, detail,
                isolation, report, output, compile);
    }

    /** This execution with its streams' arrival order, as the tier recorded it. */
    public Execution withOutput(CapturedOutput arrived) {
        return new Execution(outcome, exitCode, signal, stdout, stderr, wallTime, cpuTime, peakMemoryBytes, detail,
                isolation, judgement, arrived, compile);
    }

    /** This execution (the run stage) after {@code stage}, the compile stage that built what it ran. */
    public Execution withCompile(Execution stage) {
        return new Execution(outcome, exitCode, signal, stdout, stderr, wallTime, cpuTime, peakMemoryBytes, detail,
                isolation, judgement, output, stage);
    }

    /** A compiled program whose compile stage failed: it never ran; {@code stage} says why. */
    public static Execution compilationFailed(Execution stage, String detail) {
        return new Execution(Outcome.COMPILATION_ERROR, null, null, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                Duration.ZERO, null, null, detail, stage.isolation(), null, null, stage);
    }

    /** Both streams in the order they arrived where the tier recorded it, else stdout followed by stderr. */
    public CapturedOutput combinedOutput() {
        return output != null ? output
                : new CapturedOutput(stdout.text() + stderr.text(), stdout.truncated() || stderr.truncated());
    }

    /** An execution that never started because the sandbox failed. */
    public static Execution sandboxError(String detail, Duration wallTime, Isolation isolation) {
        return new Execution(Outcome.SANDBOX_ERROR, null, null, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                wallTime, null, null, detail, isolation);
    }

    /** A program refused by the code policy before it ran. */
    public static Execution policyViolation(String detail, Isolation isolation) {
        return new Execution(Outcome.POLICY_VIOLATION, null, null, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                Duration.ZERO, null, null, detail, isolation);
    }

    public boolean ok() {
        return outcome == Outcome.OK;
    }
}
