package dev.codeagent.application.eval;

import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Verdict;
import java.util.Objects;

/**
 * How one sample fared.
 *
 * @param taskId the problem
 * @param sampleIndex the sample's 0-based number among that problem's samples
 * @param verdict the judge's verdict
 * @param message the verdict's one-line reason; empty when accepted
 * @param error the parsed error (type, line and source line in the checked code), or null
 * @param outcome how the execution ended, or null when the sample did not run
 * @param wallMs time taken to run and judge it, in milliseconds
 */
public record SampleResult(
        String taskId,
        int sampleIndex,
        Verdict.Kind verdict,
        String message,
        ErrorReport error,
        Outcome outcome,
        long wallMs) {

    public SampleResult {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(verdict, "verdict");
        message = message == null ? "" : message;
    }

    public boolean passed() {
        return verdict == Verdict.Kind.ACCEPTED;
    }
}
