package dev.codeagent.application.eval;

import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One benchmark problem and its dataset's convention for checking a completion.
 *
 * <p>HumanEval runs {@code prompt + completion} and judges it by the problem's test code and
 * {@code check(entry_point)}; MBPP runs the completion (a whole program) and judges it by the setup code
 * and each assert of {@code test_list}. The tests run in the judge's process, never in the program, so
 * error lines refer to the code alone ({@link #judgeJob}).
 *
 * @param taskId the dataset's id ({@code HumanEval/0}, {@code 11})
 * @param format which convention applies
 * @param prompt HumanEval: the function signature and docstring the completion continues; MBPP: the
 *     problem statement
 * @param reference the dataset's own solution (HumanEval canonical_solution, MBPP code)
 * @param testCode HumanEval: the test code defining {@code check}; MBPP: the setup code, possibly empty
 * @param asserts MBPP: the asserts of test_list; HumanEval: empty
 * @param entryPoint HumanEval: the function under test; MBPP: null
 * @param language what a completion is written in: Python for HumanEval and MBPP, the problem's own for IO
 * @param cases IO: the inputs and the outputs a completion must print for them; the others: empty
 */
public record Problem(
        String taskId,
        ProblemFormat format,
        String prompt,
        String reference,
        String testCode,
        List<String> asserts,
        String entryPoint,
        Language language,
        List<IoCase> cases) {

    /** One test of an IO problem: the program's stdin and what it must print (compared as the judge compares). */
    public record IoCase(String input, String output) {
        public IoCase {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(output, "output");
        }
    }

    public Problem(String taskId, ProblemFormat format, String prompt, String reference, String testCode,
            List<String> asserts, String entryPoint) {
        this(taskId, format, prompt, reference, testCode, asserts, entryPoint, Language.PYTHON, List.of());
    }

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
        Objects.requireNonNull(language, "language");
        cases = List.copyOf(cases);
        if (format == ProblemFormat.IO && cases.isEmpty()) {
            throw new IllegalArgumentException("an IO problem needs at least one test in tests");
        }
        if (format != ProblemFormat.IO && language != Language.PYTHON) {
            throw new IllegalArgumentException(format.id() + " problems are Python");
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

    /**
     * The tests as the judge runs them (null for IO, whose outputs the host compares): HumanEval's {@code check} with the prompt as a trusted prelude (its
     * helpers, such as {@code encode_cyclic}, stay the dataset's, not the code's) and the entry point as the one
     * name the code must provide; MBPP's asserts with the functions the reference defines and the asserts call
     * as entry points (one may be named like a built-in: task 126 asks for {@code sum}).
     */
    public JudgeJob judgeJob() {
        if (format == ProblemFormat.IO) {
            // judged from outside: the program's output against each test's, no judge process
            return null;
        }
        if (format == ProblemFormat.HUMANEVAL) {
            return new JudgeJob(tests() + "\n", prompt, List.of(entryPoint));
        }
        Set<String> called = new LinkedHashSet<>();
        for (String a : asserts) {
            Matcher m = CALL.matcher(a);
            while (m.find()) {
                called.add(m.group(1));
            }
        }
        List<String> entries = new ArrayList<>();
        Matcher d = DEF.matcher(reference);
        while (d.find()) {
            if (called.contains(d.group(1)) && !entries.contains(d.group(1))) {
                entries.add(d.group(1));
            }
        }
        return new JudgeJob(tests() + "\n", null, entries);
    }

    private static final Pattern CALL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*\\(");
    private static final Pattern DEF = Pattern.compile("(?m)^(?:def|class)\\s+([A-Za-z_][A-Za-z0-9_]*)");

    /** The task the judge decides a completion of this problem against (an IO problem: its first test). */
    public Task judgingTask(ResourceLimits limits) {
        if (format == ProblemFormat.IO) {
            return caseTask(prompt.isBlank() ? taskId : prompt, 0, limits, 1);
        }
        return new Task(prompt.isBlank() ? taskId : prompt, Language.PYTHON, tests(), null, "", limits, 1);
    }

    /** An IO problem's task for its test {@code index}: that input on stdin, that output expected. */
    public Task caseTask(String prompt, int index, ResourceLimits limits, int maxAttempts) {
        IoCase c = cases.get(index);
        return new Task(prompt, language, null, c.output(), c.input(), limits, maxAttempts);
    }

    /**
     * The task a code generator is given for this problem: an instruction the way each dataset is
     * usually prompted, with the problem's tests for the agent loop to judge attempts by.
     */
    public Task generationTask(ResourceLimits limits, int maxAttempts) {
        String instruction;
        if (format == ProblemFormat.IO) {
            // the agent loop judges attempts by the first test, which the prompt shows as the example
            IoCase first = cases.get(0);
            instruction = prompt + "\n\nRead the input from standard input and print the answer to standard output.\n"
                    + "Example input:\n" + first.input() + (first.input().endsWith("\n") ? "" : "\n")
                    + "Expected output:\n" + first.output() + "\n";
            return caseTask(instruction, 0, limits, maxAttempts);
        }
        if (format == ProblemFormat.HUMANEVAL) {
            instruction = "Complete the following Python function. Reply with the whole function, its signature and any "
                    + "imports it needs included, in one ```python code block.\n\n```python\n" + prompt + "```\n";
        } else {
            instruction = prompt + "\nYour code should pass these tests:\n\n" + String.join("\n", asserts) + "\n";
        }
        return new Task(instruction, Language.PYTHON, tests(), null, "", limits, maxAttempts);
    }
}
