package dev.codeagent.application.solve;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class FeedbackPromptTest {

    private static final Isolation ISOLATION = new Isolation("process", Set.of(IsolationFeature.RLIMITS), Set.of());

    // real CPython 3.11 output (see agent-domain's traceback corpus: nested_calls, humaneval_assert)
    private static final String NESTED_CODE = "def parse(text):\n    return int(text)\n\n\ndef total(items):\n    result = 0\n"
            + "    for item in items:\n        result += parse(item)\n    return result\n\n\ndef main():\n"
            + "    print(total([\"1\", \"2\", \"x3\"]))\n\n\nmain()";
    private static final String NESTED_STDERR = "Traceback (most recent call last):\n"
            + "  File \"/tmp/run-abd4vd2e/main.py\", line 16, in <module>\n    main()\n"
            + "  File \"/tmp/run-abd4vd2e/main.py\", line 13, in main\n    print(total([\"1\", \"2\", \"x3\"]))\n"
            + "          ^^^^^^^^^^^^^^^^^^^^^^^\n"
            + "  File \"/tmp/run-abd4vd2e/main.py\", line 8, in total\n    result += parse(item)\n              ^^^^^^^^^^^\n"
            + "  File \"/tmp/run-abd4vd2e/main.py\", line 2, in parse\n    return int(text)\n           ^^^^^^^^^\n"
            + "ValueError: invalid literal for int() with base 10: 'x3'\n";
    private static final String ADD_CODE = "def add(a, b):\n    return a - b";
    private static final String ADD_TESTS = "def check(candidate):\n    assert candidate(1, 1) == 2\n    assert candidate(2, 3) == 5\n\n\ncheck(add)\n";
    private final FeedbackPrompt feedback = new FeedbackPrompt();
    private final Judge judge = new Judge();

    private static Execution ran(Outcome outcome, Integer exit, String stdout, String stderr) {
        return new Execution(outcome, exit, null, new CapturedOutput(stdout, false), new CapturedOutput(stderr, false),
                Duration.ofMillis(30), null, null, null, ISOLATION);
    }

    private String feedbackOn(Task task, String code, Execution execution) {
        Verdict verdict = judge.judge(task, judge.prepare(task, code), execution);
        return feedback.forFailure(code, execution, verdict);
    }

    @Test
    void runtimeErrorNamesTheExceptionTheLineOfTheCodeAndThePathToIt() {
        String text = feedbackOn(Task.of("sum"), NESTED_CODE, ran(Outcome.RUNTIME_ERROR, 1, "", NESTED_STDERR));

        assertThat(text).startsWith("Your program failed: RUNTIME_ERROR");
        assertThat(text).contains("Error: ValueError: invalid literal for int() with base 10: 'x3'\n");
        assertThat(text).contains("It was raised at line 2 of your code:\n    return int(text)\n");
        assertThat(text).contains("Call path through your code: line 16 (<module>) -> line 13 (main) -> line 8 (total) -> line 2 (parse)");
        assertThat(text).contains("stderr:\n```\n" + NESTED_STDERR.strip() + "\n```");
        assertThat(text).doesNotContain("stdout").doesNotContain("tests follow");
        assertThat(text).endsWith("reply with the complete corrected program in one fenced code block (```), with no other code blocks.");
    }

    @Test
    void failedTestNamesTheAssertionAndWhatTheCodeReturned() {
        Task task = new Task("add", Language.PYTHON, ADD_TESTS, null, "", ResourceLimits.defaults(), 3);
        Execution judged = ran(Outcome.OK, 0, "", "").withJudgement(new JudgeReport(JudgeReport.Outcome.ASSERTION,
                "failed assertion: assert candidate(1, 1) == 2", 2, "    assert candidate(1, 1) == 2",
                List.of("candidate(1, 1) returned 0"), null));

        String text = feedbackOn(task, ADD_CODE, judged);

        assertThat(text).startsWith("Your program failed: WRONG_ANSWER - it ran, but gave a wrong result.\n");
        assertThat(text).contains("Failing assertion: assert candidate(1, 1) == 2\nThe call: candidate(1, 1) returned 0\n");
        assertThat(text).doesNotContain("Assertion message").doesNotContain("It failed at line");
    }

    @Test
    void anExceptionTheJudgeSawNamesTheLineOfTheCodeAndTheCall() {
        Task task = new Task("add", Language.PYTHON, ADD_TESTS, null, "", ResourceLimits.defaults(), 3);
        String code = "def add(a, b):\n    return a / (b - 1)";
        Execution judged = ran(Outcome.OK, 0, "", "").withJudgement(new JudgeReport(JudgeReport.Outcome.RAISED,
                "ZeroDivisionError: division by zero", 2, "    assert candidate(1, 1) == 2",
                List.of("candidate(1, 1) raised ZeroDivisionError"), new JudgeReport.RaisedError("ZeroDivisionError",
                        "division by zero", List.of(new JudgeReport.ReportedFrame("/work/main.py", 2, "add",
                                "    return a / (b - 1)")))));

        String text = feedbackOn(task, code, judged);

        assertThat(text).startsWith("Your program failed: RUNTIME_ERROR");
        assertThat(text).contains("Error: ZeroDivisionError: division by zero\n"
                + "It was raised at line 2 of your code:\n    return a / (b - 1)\n"
                + "The call: candidate(1, 1) raised ZeroDivisionError\n");
    }

    @Test
    void syntaxErrorKeepsTheCaretUnderItsColumn() {
        String stderr = "  File \"/tmp/run-wa7xulq7/main.py\", line 1\n    def add(a, b)\n                 ^\nSyntaxError: expected ':'\n";

        String text = feedbackOn(Task.of("add"), "def add(a, b)\n    return a + b", ran(Outcome.RUNTIME_ERROR, 1, "", stderr));

        assertThat(text).startsWith("Your program failed: SYNTAX_ERROR - it is not valid code.\n"
                + "Error: SyntaxError: expected ':'\nIt is at line 1 of your code:\n    def add(a, b)\n");
        assertThat(text).contains("stderr:\n```\n" + stderr + "```");
    }

    @Test
    void wrongOutputShowsExpectedAndActualLine() {
        Task task = new Task("count", Language.PYTHON, null, "1\n2\n3\n", "", ResourceLimits.defaults(), 3);

        String text = feedbackOn(task, "for i in range(3):\n    print(i)", ran(Outcome.OK, 0, "0\n1\n2\n", ""));

        assertThat(text).contains("The output differs from the expected output at line 1:\n  expected: \"1\"\n  actual:   \"0\"\n");
        assertThat(text).contains("stdout:\n```\n0\n1\n2\n```");
        assertThat(text).doesNotContain("stderr");
    }

    @Test
    void limitVerdictsSayWhatHappenedAndWhatToDo() {
        Execution timeout = new Execution(Outcome.TIME_LIMIT, null, 9, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                Duration.ofSeconds(10), null, null, "wall time limit of 10s reached", ISOLATION);

        String text = feedbackOn(Task.of("loop"), "while True:\n    pass", timeout);

        assertThat(text).startsWith("Your program failed: TIME_LIMIT_EXCEEDED - it ran out of time.\n"
                + "What happened: wall time limit of 10s reached\nMake sure it terminates");
    }

    @Test
    void codeThatNeverRanGetsItsVerdictWithoutOutputSections() {
        Verdict refused = Verdict.of(Verdict.Kind.POLICY_VIOLATION, "import of forbidden module 'socket' on line 1");

        String text = feedback.forFailure("import socket", null, refused);

        assertThat(text).isEqualTo("Your program failed: POLICY_VIOLATION - it uses something that is not allowed here.\n"
                + "What happened: import of forbidden module 'socket' on line 1\nSolve the task without it.\n\n"
                + "Fix the program and reply with the complete corrected program in one fenced code block (```), "
                + "with no other code blocks.");
    }

    @Test
    void longOutputIsCutToItsTailAndMarked() {
        String stdout = IntStream.rangeClosed(1, 100).mapToObj(i -> "line " + i).collect(Collectors.joining("\n")) + "\n";
        String stderr = "x".repeat(10_000) + "\nlast words\n";
        Execution execution = new Execution(Outcome.RUNTIME_ERROR, 2, null, new CapturedOutput(stdout, false),
                new CapturedOutput(stderr, true), Duration.ofMillis(5), null, null, null, ISOLATION);

        String text = feedbackOn(Task.of("x"), "print(1)", execution);

        assertThat(text).contains("stdout (last part only):\n```\nline 61\n").contains("line 100\n```")
                .doesNotContain("line 60\n");
        assertThat(text).contains("stderr (last part only; the sandbox kept only part of it):\n```\nlast words\n```");
        assertThat(text.length()).isLessThan(2 * FeedbackPrompt.TAIL_CHARS);
    }

    @Test
    void isDeterministic() {
        Execution execution = ran(Outcome.RUNTIME_ERROR, 1, "partial\n", NESTED_STDERR);
        assertThat(feedbackOn(Task.of("sum"), NESTED_CODE, execution)).isEqualTo(feedbackOn(Task.of("sum"), NESTED_CODE, execution));
    }

    @Test
    void acceptedAttemptNeedsNoFeedback() {
        assertThat(feedback.forFailure("print(1)", ran(Outcome.OK, 0, "1\n", ""), Verdict.accepted())).isEmpty();
    }

    @Test
    void replyWithoutCodeAsksForOneFencedBlock() {
        assertThat(feedback.noCodeFound()).contains("no code").contains("one fenced code block");
    }
}
