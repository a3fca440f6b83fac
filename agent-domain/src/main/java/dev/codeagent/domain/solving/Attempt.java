package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.Execution;
import java.time.Duration;
import java.util.Objects;

/**
 * One try at a task: what the model replied, the code taken from it, how it ran, and the verdict.
 *
 * @param number 1-based
 * @param reply the model's whole reply
 * @param code the code extracted from the reply; empty when the reply held none
 * @param execution how the code ran, or null when it did not run (no code, refused by policy)
 * @param verdict the judge's decision
 * @param feedback the message the generator sees next because of this attempt; empty when accepted
 * @param generationTime time spent getting the reply
 * @param executionTime time spent running and judging
 * @param placement where the attempt was made; null when not recorded (attempts stored before placements were)
 */
public record Attempt(
        int number,
        String reply,
        String code,
        Execution execution,
        Verdict verdict,
        String feedback,
        Duration generationTime,
        Duration executionTime,
        Placement placement) {

    public Attempt {
        if (number < 1) {
            throw new IllegalArgumentException("attempt number must be at least 1, was " + number);
        }
        Objects.requireNonNull(reply, "reply");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(verdict, "verdict");
        feedback = feedback == null ? "" : feedback;
        Objects.requireNonNull(generationTime, "generationTime");
        Objects.requireNonNull(executionTime, "executionTime");
    }

    /** An attempt whose placement is not recorded. */
    public Attempt(int number, String reply, String code, Execution execution, Verdict verdict, String feedback,
            Duration generationTime, Duration executionTime) {
        this(number, reply, code, execution, verdict, feedback, generationTime, executionTime, null);
    }
}
