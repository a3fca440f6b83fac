package dev.codeagent.application.execute;

import dev.codeagent.domain.execution.Execution;
import java.util.List;

/**
 * An execution as the front doors report it: exactly the fields of {@code codeagent exec --json}, in
 * that order, which {@code POST /v1/executions} answers with too. One record so the two cannot drift.
 *
 * @param isolation the isolation features in force, sorted
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
        List<String> isolation) {

    public ExecutionSummary {
        isolation = List.copyOf(isolation);
    }

    public static ExecutionSummary of(Execution e) {
        return new ExecutionSummary(e.outcome().name(), e.exitCode(), e.signal(), e.stdout().text(), e.stderr().text(),
                e.stdout().truncated(), e.stderr().truncated(), e.wallTime().toMillis(),
                e.cpuTime() == null ? null : e.cpuTime().toMillis(), e.peakMemoryBytes(), e.isolation().tier(),
                List.copyOf(e.isolation().sortedFeatures()));
    }
}
