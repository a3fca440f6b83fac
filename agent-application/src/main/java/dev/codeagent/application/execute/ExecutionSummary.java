package dev.codeagent.application.execute;

import dev.codeagent.domain.execution.Execution;
import java.util.List;

/**
 * An execution as the front doors report it: exactly the fields of {@code codeagent exec --json}, in
 * that order, which {@code POST /v1/executions} answers with too. One record so the two cannot drift.
 *
 * @param isolation the isolation features in force, sorted
 * @param compile a compiled language's compile stage (the compiler's messages in its stderr); null for the others
 */
public record ExecutionSummary(
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
        Stage compile) {

    public ExecutionSummary {
        isolation = List.copyOf(isolation);
    }

    /** A stage of a compiled program, with the fields of the summary that are the stage's own. */
    public record Stage(
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

        static Stage of(Execution e) {
            return e == null ? null : new Stage(stageOutcome(e), e.exitCode(), e.signal(), e.stdout().text(),
                    e.stderr().text(), e.stdout().truncated(), e.stderr().truncated(), e.wallTime().toMillis(),
                    e.cpuTime() == null ? null : e.cpuTime().toMillis(), e.peakMemoryBytes());
        }
    }

    /**
     * A compile stage's outcome in the words of a compile: the compiler exiting non-zero is the sandbox's
     * RUNTIME_ERROR of the compiler process, but to the reader the code did not compile (its limits keep their names).
     */
    static String stageOutcome(Execution stage) {
        return stage.outcome() == dev.codeagent.domain.execution.Outcome.RUNTIME_ERROR && stage.signal() == null
                ? dev.codeagent.domain.execution.Outcome.COMPILATION_ERROR.name() : stage.outcome().name();
    }

    public static ExecutionSummary of(Execution e) {
        return new ExecutionSummary(e.outcome().name(), e.exitCode(), e.signal(), e.stdout().text(), e.stderr().text(),
                e.stdout().truncated(), e.stderr().truncated(), e.wallTime().toMillis(),
                e.cpuTime() == null ? null : e.cpuTime().toMillis(), e.peakMemoryBytes(), e.isolation().tier(),
                List.copyOf(e.isolation().sortedFeatures()), Stage.of(e.compile()));
    }
}
