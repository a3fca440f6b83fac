package dev.codeagent.application.eval;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import java.util.List;
import java.util.Objects;

/**
 * One benchmark problem and its dataset's convention for checking a completion.
 *
 * <p>HumanEval checks {@code prompt + completion}, followed by the problem's test code and
 * {@code check(entry_point)}; MBPP checks the completion (a whole program), followed by the setup code
 * and each assert of {@code test_list}. The part before the tests is what the {@code Judge} sees as
 * the code, so error lines refer to it.
 *
 * @param taskId the dataset's id ({@code HumanEval/0}, {@code 11})
 * @param format which convention applies
 * @param prompt HumanEval: the function signature and docstring the completion continues; MBPP: the
 *     problem statement
 * @param reference the dataset's own solution (HumanEval canonical_solution, MBPP code)
 * @param testCode HumanEval: the test code defining {@code check}; MBPP: the setup code, possibly empty
 * @param asserts MBPP: the asserts of test_list; HumanEval: empty
 * @param entryPoint HumanEval: the function under test; MBPP: null
 */
public record Problem(
        String taskId,
        ProblemFormat format,
        String prompt,
        String reference,
        String testCode,
        List<String> asserts,
        String entryPoint) {

    public Problem {
        Objects.requireNonNull(taskId, "taskId");
        if (taskId.isBlank()) {
            throw new IllegalArgumentException("task_id must not be blank");
        }
        Objects.requireNonNull(format, "format");
        prompt = prompt == null ? "" : prompt;
        Objects.requireNonNull(reference, "reference");
        testCode = testCode == null ? "" : testCode;
        asserts = List.copyOf(asserts);
        if (format == ProblemFormat.HUMANEVAL && (entryPoint == null || entryPoint.isBlank())) {
            throw new IllegalArgumentException("a HumanEval problem needs an entry_point");
        }
        if (format == ProblemFormat.MBPP && asserts.isEmpty()) {
            throw new IllegalArgumentException("an MBPP problem needs at least one assert in test_list");
        }
    }

    /** The code part of the checked program for a completion: what the judge maps error lines to. */
    public String code(String completion) {
        return format == ProblemFormat.HUMANEVAL ? prompt + completion : completion;
    }

    /**
     * A whole program a model wrote (as the agent loop extracts it) as a completion of this problem.
     * HumanEval: on lines of its own after the prompt, so that prompt + completion first declares the
     * prompt's stub, then the model's definition replaces it.
     */
    public String completionOf(String code) {
        String c = code.endsWith("\n") ? code : code + "\n";
        return format == ProblemFormat.HUMANEVAL && !prompt.isEmpty() && !prompt.endsWith("\n") ? "\n" + c : c;
    }

    /** The test part of the checked program, appended to {@link #code(String)} by the judge. */
    public String tests() {
        if (format == ProblemFormat.HUMANEVAL) {
            return testCode + "\n" + "check(" + entryPoint + ")";
        }
        return testCode + "\n" + String.join("\n", asserts);
    }

    /** The task the judge decides a completion of this problem against. */
    public Task judgingTask(ResourceLimits limits) {
        return new Task(prompt.isBlank() ? taskId : prompt, Language.PYTHON, tests(), null, "", limits, 1);
    }

    /**
     * The task a code generator is given for this problem: an instruction the way each dataset is
     * usually prompted, with the problem's tests for the agent loop to judge attempts by.
     */
    public Task generationTask(ResourceLimits limits, int maxAttempts) {
        String instruction;
        if (format == ProblemFormat.HUMANEVAL) {
            instruction = "Complete the following Python function. Reply with the whole function, its signature and any "
                    + "imports it needs included, in one ```python code block.\n\n```python\n" + prompt + "```\n";
        } else {
            instruction = prompt + "\nYour code should pass these tests:\n\n" + String.join("\n", asserts) + "\n";
        }
        return new Task(instruction, Language.PYTHON, tests(), null, "", limits, maxAttempts);
    }
}
