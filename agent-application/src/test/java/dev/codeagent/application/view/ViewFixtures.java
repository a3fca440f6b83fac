package dev.codeagent.application.view;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Placement;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The runs and executions whose views are the golden files beside this class ({@link Goldens}). Every door's
 * test renders these same values and compares its output with the same files, so a door that renames or drops a
 * field fails, and so does a view that changes without its golden file.
 */
public final class ViewFixtures {

    private static final Instant STARTED = Instant.parse("2026-01-02T03:04:05Z");
    private static final Isolation PROCESS = Isolation.of("process",
            List.of(IsolationFeature.RLIMITS, IsolationFeature.PID_NAMESPACE, IsolationFeature.NETWORK_NONE), List.of());
    private static final Placement PLACEMENT = new Placement("worker-1", 4242, "process");

    private ViewFixtures() {
    }

    /** SOLVED on its third attempt: a runtime error with a located traceback, a wrong answer, then accepted. */
    public static Run solvedRun() {
        Task task = new Task("print the median of 3 1 2", Language.PYTHON, null, "2\n", "3 1 2\n",
                ResourceLimits.defaults(), 3);
        ErrorReport indexError = new ErrorReport("IndexError", "list index out of range", 3,
                "print(xs[len(xs)])", List.of(
                        new Frame("main.py", 3, "<module>", "print(xs[len(xs)])", 3)));
        Attempt runtimeError = new Attempt(1, "```python\nxs = sorted(map(int, input().split()))\n\nprint(xs[len(xs)])\n```",
                "xs = sorted(map(int, input().split()))\n\nprint(xs[len(xs)])\n",
                execution(Outcome.RUNTIME_ERROR, 1, "", "Traceback (most recent call last):\n"
                        + "  File \"main.py\", line 3, in <module>\nIndexError: list index out of range\n", 41),
                new Verdict(Verdict.Kind.RUNTIME_ERROR, "IndexError: list index out of range", indexError, null),
                "Your code raised IndexError on line 3.", Duration.ofMillis(1200), Duration.ofMillis(41), PLACEMENT);
        Attempt wrongAnswer = new Attempt(2, "```python\nxs = sorted(map(int, input().split()))\nprint(xs[0])\n```",
                "xs = sorted(map(int, input().split()))\nprint(xs[0])\n",
                execution(Outcome.OK, 0, "1\n", "", 38),
                new Verdict(Verdict.Kind.WRONG_ANSWER, "line 1 differs", null, new OutputDifference(1, "2", "1")),
                "Line 1 of the output was 1, expected 2.", Duration.ofMillis(900), Duration.ofMillis(38), PLACEMENT);
        Attempt accepted = new Attempt(3, "```python\nxs = sorted(map(int, input().split()))\nprint(xs[len(xs) // 2])\n```",
                "xs = sorted(map(int, input().split()))\nprint(xs[len(xs) // 2])\n",
                execution(Outcome.OK, 0, "2\n", "", 37),
                Verdict.accepted(), "", Duration.ofMillis(800), Duration.ofMillis(37), PLACEMENT);
        return new Run("run-solved", task, RunStatus.SOLVED, List.of(runtimeError, wrongAnswer, accepted), STARTED,
                STARTED.plusSeconds(5), null, "key:alice");
    }

    /** CANCELLED during its first attempt, of no one's, with no placement recorded (an older row). */
    public static Run cancelledRun() {
        Task task = new Task("loop forever", Language.PYTHON, "assert True\n", null, "", ResourceLimits.defaults(), 2);
        Attempt cancelled = new Attempt(1, "```python\nwhile True: pass\n```", "while True: pass\n", null,
                Verdict.of(Verdict.Kind.CANCELLED, "the run was cancelled"), "", Duration.ofMillis(300),
                Duration.ZERO, null);
        return new Run("run-cancelled", task, RunStatus.CANCELLED, List.of(cancelled), STARTED, STARTED.plusSeconds(2),
                "cancelled by key:bob", null);
    }

    /** A program that printed and exited 0. */
    public static Execution okExecution() {
        return new Execution(Outcome.OK, 0, null, new CapturedOutput("hello\n", false), new CapturedOutput("", false),
                Duration.ofMillis(52), Duration.ofMillis(30), 9_437_184L, null, PROCESS);
    }

    /** Java code that did not compile: the compile stage failed and the program never ran. */
    public static Execution compileErrorExecution() {
        Execution stage = new Execution(Outcome.RUNTIME_ERROR, 1, null, new CapturedOutput("", false),
                new CapturedOutput("Main.java:3: error: ';' expected\n", false), Duration.ofMillis(900),
                Duration.ofMillis(1500), 120_000_000L, null, PROCESS);
        return new Execution(Outcome.COMPILATION_ERROR, null, null, new CapturedOutput("", false),
                new CapturedOutput("Main.java:3: error: ';' expected\n", false), Duration.ofMillis(900),
                Duration.ofMillis(1500), 120_000_000L, "the code did not compile", PROCESS).withCompile(stage);
    }

    private static Execution execution(Outcome outcome, int exit, String stdout, String stderr, long ms) {
        return new Execution(outcome, exit, null, new CapturedOutput(stdout, false), new CapturedOutput(stderr, false),
                Duration.ofMillis(ms), Duration.ofMillis(ms - 10), 8_388_608L, null, PROCESS);
    }
}
