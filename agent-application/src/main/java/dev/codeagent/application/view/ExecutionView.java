package dev.codeagent.application.view;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Outcome;
import java.util.List;

/**
 * An execution as every door shows it: {@code codeagent exec --json}, {@code POST /v1/executions}, and an
 * attempt's {@code execution}.
 *
 * @param sandbox the tier that ran it
 * @param isolation the isolation features in force, sorted
 * @param detail the sandbox's explanation of the outcome (which limit, what failed), or null
 * @param compile a compiled language's compile stage (the compiler's messages in its stderr); null for the others
 */
public record ExecutionView(
        String outcome,
        Integer exitCode,
        Integer signal,
        String stdout,
        String stderr,
        boolean stdoutTruncated,
        boolean stderrTruncated,
        long wallTimeMs,
        Long cpuTimeMs,
        Long peakMemoryBytes,
        String sandbox,
        List<String> isolation,
        String detail,
        StageView compile) {

    public ExecutionView {
        isolation = List.copyOf(isolation);
    }

    public static ExecutionView of(Execution e) {
        return e == null ? null : new ExecutionView(e.outcome().name(), e.exitCode(), e.signal(), e.stdout().text(),
                e.stderr().text(), e.stdout().truncated(), e.stderr().truncated(), e.wallTime().toMillis(),
                e.cpuTime() == null ? null : e.cpuTime().toMillis(), e.peakMemoryBytes(), e.isolation().tier(),
                List.copyOf(e.isolation().sortedFeatures()), e.detail(), StageView.of(e.compile()));
    }

    /** A stage of a compiled program, with the fields of an execution that are the stage's own. */
    public record StageView(
            String outcome,
            Integer exitCode,
            Integer signal,
            String stdout,
            String stderr,
            boolean stdoutTruncated,
            boolean stderrTruncated,
            long wallTimeMs,
            Long cpuTimeMs,
            Long peakMemoryBytes) {

        static StageView of(Execution e) {
            return e == null ? null : new StageView(stageOutcome(e), e.exitCode(), e.signal(), e.stdout().text(),
                    e.stderr().text(), e.stdout().truncated(), e.stderr().truncated(), e.wallTime().toMillis(),
                    e.cpuTime() == null ? null : e.cpuTime().toMillis(), e.peakMemoryBytes());
        }
    }

    /**
     * A compile stage's outcome in the words of a compile: the compiler exiting non-zero is the sandbox's
     * RUNTIME_ERROR of the compiler process, but to the reader the code did not compile (its limits keep their names).
     */
    static String stageOutcome(Execution stage) {
        return stage.outcome() == Outcome.RUNTIME_ERROR && stage.signal() == null
                ? Outcome.COMPILATION_ERROR.name() : stage.outcome().name();
    }
}
