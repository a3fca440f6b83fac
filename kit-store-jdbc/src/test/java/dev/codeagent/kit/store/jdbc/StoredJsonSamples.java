package dev.codeagent.kit.store.jdbc;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** The values whose stored JSON is checked in under {@code stored-json/}: every field of every record set. */
public final class StoredJsonSamples {

    private StoredJsonSamples() {
    }

    /** Feature names that every version has reported alike, so the golden file holds for all of them. */
    public static Isolation isolation() {
        return Isolation.of("process", Set.of(IsolationFeature.RLIMITS, IsolationFeature.PID_NAMESPACE, IsolationFeature.MOUNT_NAMESPACE),
                Set.of(IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_PIDS));
    }

    /** An attempt in which no field is null: an execution, an error report and an output difference. */
    public static Attempt fullAttempt() {
        Execution e = new Execution(Outcome.RUNTIME_ERROR, 1, 9,
                new CapturedOutput("partial out\u0000\r\n", true),
                new CapturedOutput("Traceback (most recent call last):\n  File \"main.py\", line 3\nZeroDivisionError: division by zero\n", false),
                Duration.ofNanos(123_456_789), Duration.ofMillis(98), 12_345_678L, "exited with status 1", isolation())
                .withOutput(new CapturedOutput("partial out\u0000\r\nTraceback (most recent call last):\n", true))
                .withJudgement(new JudgeReport(JudgeReport.Outcome.RAISED, "ZeroDivisionError: division by zero", 4,
                        "    assert candidate(1, 0) == 0", List.of("candidate(1, 0)"),
                        new JudgeReport.RaisedError("ZeroDivisionError", "division by zero",
                                List.of(new JudgeReport.ReportedFrame("main.py", 3, "f", "    return a / b")))));
        ErrorReport error = new ErrorReport("ZeroDivisionError", "division by zero", 3, "    return a / b",
                List.of(new Frame("main.py", 5, "<module>", "print(f(1, 0))", 5),
                        new Frame("/usr/lib/python3/x.py", 3, "f", null, null)));
        Verdict v = new Verdict(Verdict.Kind.RUNTIME_ERROR, "ZeroDivisionError: division by zero", error,
                new OutputDifference(2, "3", null));
        return new Attempt(2, "```python\ndef f(a, b):\n    return a / b\n```", "def f(a, b):\n    return a / b\n",
                e, v, "Your code raised ZeroDivisionError on line 3", Duration.ofMillis(1234).plusNanos(1), Duration.ofSeconds(2),
                new dev.codeagent.domain.solving.Placement("worker-2", 4711, "process"));
    }
}
