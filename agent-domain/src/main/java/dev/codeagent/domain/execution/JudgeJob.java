package dev.codeagent.domain.execution;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Tests to decide a Python program by, run by a judge process the program cannot reach.
 *
 * <p>A sandbox given a judged {@link ExecutionRequest} runs the program (the <em>candidate</em>) through
 * {@code candidate.py} and, beside it, {@code judge.py} (scripts the tier supplies; the sandbox kit ships them)
 * under another uid the candidate cannot read, signal, trace or write to. The judge runs {@code prelude} then
 * {@code tests} in a namespace whose names call into the candidate, values crossing as data. Its verdict reaches the caller as
 * {@link Execution#judgement()} over a channel only the sandbox reads; the tests, the prelude and the verdict
 * are never visible to the candidate (not in its files, arguments, environment or output).
 *
 * @param tests Python source run on the judge's side (HumanEval's {@code check} and its call, MBPP's setup and
 *     asserts, a task's tests); not blank
 * @param prelude trusted Python source run on the judge's side before the tests (HumanEval's prompt, whose
 *     helpers the tests may call), or null
 * @param entryPoints names the tests call that the candidate must define and that may shadow a built-in
 *     ({@code sum}); may be empty
 * @param batch null for tests of their own (a task's: each judged by a judge process of its own); otherwise the
 *     name of a batch whose tests all come from one source (an evaluation's dataset), which a sandbox may judge
 *     in one long-lived judge process forking a child per job. Jobs of one batch may see each other's tests
 *     there, never a candidate: give one batch name only to tests of one trust domain.
 */
public record JudgeJob(String tests, String prelude, List<String> entryPoints, String batch) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern BATCH = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public JudgeJob {
        Objects.requireNonNull(tests, "tests");
        if (tests.isBlank()) {
            throw new IllegalArgumentException("tests must not be blank");
        }
        if (prelude != null && prelude.isBlank()) {
            prelude = null;
        }
        entryPoints = List.copyOf(Objects.requireNonNull(entryPoints, "entryPoints"));
        if (batch != null && !BATCH.matcher(batch).matches()) {
            throw new IllegalArgumentException("a batch name is 1-64 letters, digits, '-' or '_': " + batch);
        }
        for (String e : entryPoints) {
            if (!IDENTIFIER.matcher(e).matches()) {
                throw new IllegalArgumentException("entry point is not a Python identifier: " + e);
            }
        }
    }

    public JudgeJob(String tests, String prelude, List<String> entryPoints) {
        this(tests, prelude, entryPoints, null);
    }

    public static JudgeJob of(String tests) {
        return new JudgeJob(tests, null, List.of());
    }

    /** This job as one of batch {@code name} (see {@link #batch()}). */
    public JudgeJob inBatch(String name) {
        return new JudgeJob(tests, prelude, entryPoints, name);
    }
}
