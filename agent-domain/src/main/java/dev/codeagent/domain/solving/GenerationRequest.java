package dev.codeagent.domain.solving;

import java.util.List;
import java.util.Objects;

/**
 * What a generator is asked: the task, and for each failed attempt so far the model's reply and the
 * feedback it earned, oldest first.
 */
public record GenerationRequest(Task task, List<Turn> history) {

    /** One failed attempt as the model sees it: its reply, then the feedback on it. */
    public record Turn(String reply, String feedback) {
        public Turn {
            Objects.requireNonNull(reply, "reply");
            Objects.requireNonNull(feedback, "feedback");
        }
    }

    public GenerationRequest {
        Objects.requireNonNull(task, "task");
        history = List.copyOf(history);
    }

    /** The 1-based number of the attempt this request is for. */
    public int attemptNumber() {
        return history.size() + 1;
    }
}
