package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import java.util.Objects;

/**
 * A problem for the agent to solve.
 *
 * @param prompt what the code should do, in the user's words; not blank
 * @param language what the code is to be written in
 * @param tests code that asserts on the generated code, appended to it when judging; null for none
 * @param expectedOutput the stdout a correct program prints; null for none
 * @param stdin the input the program is run with; empty for none
 * @param limits what each execution may consume
 * @param maxAttempts how many attempts the agent may make; 1 to 20
 */
public record Task(
        String prompt,
        Language language,
        String tests,
        String expectedOutput,
        String stdin,
        ResourceLimits limits,
        int maxAttempts) {

    public static final int MAX_ATTEMPTS_CAP = 20;

    public Task {
        Objects.requireNonNull(prompt, "prompt");
        if (prompt.isBlank()) {
            throw new IllegalArgumentException("prompt must not be blank");
        }
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(limits, "limits");
        stdin = stdin == null ? "" : stdin;
        if (tests != null && tests.isBlank()) {
            tests = null;
        }
        if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_CAP) {
            throw new IllegalArgumentException("maxAttempts must be between 1 and " + MAX_ATTEMPTS_CAP + ", was " + maxAttempts);
        }
    }

    /** A task with just a prompt: Python, default limits, three attempts. */
    public static Task of(String prompt) {
        return new Task(prompt, Language.PYTHON, null, null, "", ResourceLimits.defaults(), 3);
    }

    public boolean hasTests() {
        return tests != null;
    }

    public boolean hasExpectedOutput() {
        return expectedOutput != null;
    }

    public Task withMaxAttempts(int attempts) {
        return new Task(prompt, language, tests, expectedOutput, stdin, limits, attempts);
    }
}
