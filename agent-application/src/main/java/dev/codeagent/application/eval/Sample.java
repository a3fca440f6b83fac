package dev.codeagent.application.eval;

import java.util.Objects;

/**
 * One completion to check against a problem.
 *
 * @param taskId the problem it answers
 * @param index its 0-based number among the samples of that problem, in input order
 * @param completion the code: HumanEval, what follows the prompt; MBPP, the whole program
 * @param generationError why no completion could be generated, or null; a sample with one is not run
 *     and counts as failed
 */
public record Sample(String taskId, int index, String completion, String generationError) {

    public Sample {
        Objects.requireNonNull(taskId, "taskId");
        if (index < 0) {
            throw new IllegalArgumentException("sample index must not be negative, was " + index);
        }
        Objects.requireNonNull(completion, "completion");
    }

    public Sample(String taskId, int index, String completion) {
        this(taskId, index, completion, null);
    }
}
