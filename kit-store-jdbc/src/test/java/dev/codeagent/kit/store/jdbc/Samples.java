package dev.codeagent.kit.store.jdbc;

import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/** Domain values that use every field, including nulls, odd text and nanosecond times. */
public final class Samples {

    public static final Instant T0 = Instant.parse("2025-03-04T05:06:07.123456789Z");

    private Samples() {
    }

    /** A task with tests, expected output, stdin and non-default limits. */
    public static Task fullTask() {
        ResourceLimits limits = ResourceLimits.defaults()
                .withWallTime(Duration.ofMillis(2500).plusNanos(7))
                .withCpuTime(Duration.ofMillis(1500))
                .withMemoryBytes(123 * ResourceLimits.MIB + 5)
                .withMaxProcesses(3)
                .withMaxOutputBytes(4097)
                .withMaxFileBytes(0)
                .withNetwork(true);
        return new Task("Write add(a, b) — «quotes\" and\nnewlines»\t😀", Language.JAVASCRIPT,
                "assert add(1, 2) == 3\n", "3\n", "1 2\n\u0000end", limits, 7);
    }

    /** A task with every optional field absent. */
    public static Task bareTask() {
        return Task.of("print hello");
    }

    public static Isolation isolation() {
        return new Isolation("process", Set.of(IsolationFeature.RLIMITS, IsolationFeature.PID_NAMESPACE, IsolationFeature.NETWORK_NONE),
                Set.of(IsolationFeature.CGROUP_MEMORY));
    }

    /** Ran, raised an error with frames (some with null parts), output truncated, every measurement. */
    public static Attempt runtimeError(int number) {
        Execution e = new Execution(Outcome.RUNTIME_ERROR, 1, null,
                new CapturedOutput("partial out\u0000\r\n", true),
                new CapturedOutput("Traceback (most recent call last):\n  File \"main.py\", line 3\nZeroDivisionError: division by zero\n", false),
                Duration.ofNanos(123_456_789), Duration.ofMillis(98), 12_345_678L, "exited with status 1", isolation());
        ErrorReport error = new ErrorReport("ZeroDivisionError", "division by zero", 3, "    return a / b",
                List.of(new Frame("main.py", 5, "<module>", "print(f(1, 0))", 5),
                        new Frame("main.py", 3, "f", null, null)));
        Verdict v = new Verdict(Verdict.Kind.RUNTIME_ERROR, "ZeroDivisionError: division by zero", error, null);
        return new Attempt(number, "```python\ndef f(a, b):\n    return a / b\n```", "def f(a, b):\n    return a / b\n",
                e, v, "Your code raised ZeroDivisionError on line 3", Duration.ofMillis(1234).plusNanos(1), Duration.ofSeconds(2));
    }

    /** Never ran: the reply held no code. */
    public static Attempt noCode(int number) {
        return new Attempt(number, "I cannot do that.", "", null,
                Verdict.of(Verdict.Kind.INTERNAL_ERROR, "no code found in the reply"),
                "No code found; reply with one fenced code block.", Duration.ofMillis(800), Duration.ZERO);
    }

    /** Wrong output, with a difference whose expected side had ended, and a killed process. */
    public static Attempt wrongAnswer(int number) {
        Execution e = new Execution(Outcome.OK, 0, 9, new CapturedOutput("3\nextra\n", false), CapturedOutput.EMPTY,
                Duration.ofMillis(40), null, null, null, new Isolation("docker", Set.of(), Set.of()));
        Verdict v = new Verdict(Verdict.Kind.WRONG_ANSWER, "output differs", null, new OutputDifference(2, null, "extra"));
        return new Attempt(number, "print(3)\nprint('extra')", "print(3)\nprint('extra')", e, v, "line 2 differs",
                Duration.ofMillis(5), Duration.ofMillis(41));
    }

    public static Attempt accepted(int number) {
        Execution e = new Execution(Outcome.OK, 0, null, new CapturedOutput("3\n", false), CapturedOutput.EMPTY,
                Duration.ofMillis(30), Duration.ofMillis(20), 9_000_000L, null, isolation());
        return new Attempt(number, "print(3)", "print(3)", e, Verdict.accepted(), "", Duration.ofMillis(700), Duration.ofMillis(31));
    }
}
