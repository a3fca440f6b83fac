package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

class JudgeTest {

    private static final Isolation ISOLATION = new Isolation("process", Set.of(IsolationFeature.RLIMITS), Set.of());

    private final Judge judge = new Judge();

    private static Execution ran(Outcome outcome, Integer exit, Integer signal, String stdout, String stderr) {
        return new Execution(outcome, exit, signal, new CapturedOutput(stdout, false), new CapturedOutput(stderr, false),
                Duration.ofMillis(40), null, null, null, ISOLATION);
    }

    private static Execution failedWith(String stderr) {
        return ran(Outcome.RUNTIME_ERROR, 1, null, "", stderr);
    }

    private static Execution printed(String stdout) {
        return ran(Outcome.OK, 0, null, stdout, "");
    }

    private static Task withExpectedOutput(String expected) {
        return new Task("print", Language.PYTHON, null, expected, "", ResourceLimits.defaults(), 3);
    }

    private Verdict judgeCorpus(String name) {
        Corpus.Case c = Corpus.load(name);
        return judge.judge(c.task(), judge.prepare(c.task(), c.code), failedWith(c.stderr));
    }

    @Test
    void preparesCodeFollowedByTheTests() {
        Task task = new Task("add", Language.PYTHON, "assert add(1, 2) == 3", null, "", ResourceLimits.defaults(), 3);

        Submission s = judge.prepare(task, "def add(a, b):\n    return a + b");

        assertThat(s.testsDoneMarker()).startsWith("codeagent-tests-done-");
        assertThat(s.program().source()).isEqualTo("def add(a, b):\n    return a + b\n\nassert add(1, 2) == 3\n"
                + "__import__('sys').stderr.write('" + s.testsDoneMarker() + "\\n')\n");
        assertThat(judge.prepare(task, "x").testsDoneMarker()).as("a fresh secret each time").isNotEqualTo(s.testsDoneMarker());
        assertThat(s.program().language()).isEqualTo(Language.PYTHON);
        assertThat(s.codeFirstLine()).isEqualTo(1);
        assertThat(s.codeLineCount()).isEqualTo(2);
        assertThat(s.codeLine(2)).isEqualTo(2);
        assertThat(s.codeLine(4)).isNull();
    }

    @Test
    void preparesTheCodeAloneWithoutTests() {
        Task task = new Task("hi", Language.JAVASCRIPT, null, "hi", "", ResourceLimits.defaults(), 3);

        Submission s = judge.prepare(task, "console.log('hi')\n");

        assertThat(s.program().source()).isEqualTo("console.log('hi')\n");
        assertThat(s.program().language()).isEqualTo(Language.JAVASCRIPT);
        assertThat(s.codeLineCount()).isEqualTo(1);
    }

    @Test
    void failedAssertionInTheTestsIsAWrongAnswerNamingIt() {
        Verdict v = judgeCorpus("humaneval_assert");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.message()).isEqualTo("failed assertion: assert candidate(1, 1) == 2");
        assertThat(v.error().type()).isEqualTo("AssertionError");
    }

    @Test
    void failedAssertionCarriesItsMessage() {
        Verdict v = judgeCorpus("humaneval_assert_message");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.message()).isEqualTo("failed assertion: assert candidate(2) is True, \"2 is even\" - 2 is even");
    }

    @Test
    void realHumanEvalFailureIsAWrongAnswer() {
        Verdict v = judgeCorpus("humaneval_0_wrong");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.message()).contains("assert candidate([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) == True");
    }

    @Test
    void assertionInTheCodeIsAWrongAnswerWhenTheTaskHasTests() {
        Verdict v = judgeCorpus("assert_in_code");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.error().line()).isEqualTo(2);
        assertThat(v.message()).contains("values must not be empty");
    }

    @Test
    void assertionInTheCodeOfATaskWithoutTestsIsARuntimeError() {
        String code = "x = 1\nassert x == 2, 'x must be 2'";
        String stderr = "Traceback (most recent call last):\n  File \"/w/main.py\", line 2, in <module>\n"
                + "    assert x == 2, 'x must be 2'\nAssertionError: x must be 2\n";
        Task task = Task.of("x");

        Verdict v = judge.judge(task, judge.prepare(task, code), failedWith(stderr));

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(v.message()).isEqualTo("AssertionError: x must be 2 (line 2: assert x == 2, 'x must be 2')");
    }

    @Test
    void exceptionIsARuntimeErrorWithItsLineInTheCode() {
        Verdict v = judgeCorpus("zero_division");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(v.message()).isEqualTo("ZeroDivisionError: division by zero (line 2: return a / b)");
        assertThat(v.error().line()).isEqualTo(2);
    }

    @Test
    void exceptionRaisedInTheCodeCalledFromTheTestsIsARuntimeError() {
        Verdict v = judgeCorpus("index_error_in_code");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(v.message()).isEqualTo("IndexError: list index out of range (line 3: return ordered[-2])");
    }

    @Test
    void syntaxErrorsOfTheProgramAreSyntaxErrors() {
        for (String name : new String[] {"syntax_error", "syntax_error_with_tests", "unclosed_paren", "indentation_error",
                "unexpected_indent", "tab_error", "syntax_error_in_tests"}) {
            assertThat(judgeCorpus(name).kind()).as(name).isEqualTo(Verdict.Kind.SYNTAX_ERROR);
        }
        assertThat(judgeCorpus("syntax_error_with_tests").message()).isEqualTo("SyntaxError: expected ':' (line 1: def add(a, b))");
    }

    @Test
    void syntaxErrorOfCodeTheProgramCompilesAtRunTimeIsARuntimeError() {
        Verdict v = judgeCorpus("exec_syntax_error");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(v.message()).isEqualTo("SyntaxError: invalid syntax (line 5: exec(src))");
    }

    @Test
    void memoryErrorIsTheMemoryLimit() {
        Verdict v = judgeCorpus("memory_error");

        assertThat(v.kind()).isEqualTo(Verdict.Kind.MEMORY_LIMIT_EXCEEDED);
        assertThat(v.error().line()).isEqualTo(2);
        Task task = Task.of("x");
        assertThat(judge.judge(task, judge.prepare(task, "x = [0] * 10**12"), failedWith("MemoryError\n")).kind())
                .isEqualTo(Verdict.Kind.MEMORY_LIMIT_EXCEEDED);
    }

    @Test
    void messagesOverSeveralLinesBecomeOneLine() {
        Verdict v = judgeCorpus("multiline_message");

        assertThat(v.message()).isEqualTo("ValueError: negative rows found: row 1: -1 row 2: -5 (line 4: "
                + "raise ValueError(\"negative rows found:\\n  row 1: -1\\n  row 2: -5\"))");
        assertThat(v.error().message()).contains("\n");
    }

    @Test
    void limitsGiveTheirVerdicts() {
        Task task = Task.of("x");
        Submission s = judge.prepare(task, "while True: pass");
        Execution timeout = new Execution(Outcome.TIME_LIMIT, null, 9, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                Duration.ofSeconds(10), null, null, null, ISOLATION);
        Execution memory = new Execution(Outcome.MEMORY_LIMIT, null, 9, CapturedOutput.EMPTY, CapturedOutput.EMPTY,
                Duration.ofSeconds(1), null, null, "memory limit of 256 MiB reached", ISOLATION);
        Execution output = new Execution(Outcome.OUTPUT_LIMIT, null, 9, new CapturedOutput("y\ny\n", true),
                CapturedOutput.EMPTY, Duration.ofSeconds(1), null, null, null, ISOLATION);

        assertThat(judge.judge(task, s, timeout))
                .isEqualTo(Verdict.of(Verdict.Kind.TIME_LIMIT_EXCEEDED, "time limit exceeded (wall 10s, CPU 10s)"));
        assertThat(judge.judge(task, s, memory))
                .isEqualTo(Verdict.of(Verdict.Kind.MEMORY_LIMIT_EXCEEDED, "memory limit of 256 MiB reached"));
        assertThat(judge.judge(task, s, output))
                .isEqualTo(Verdict.of(Verdict.Kind.OUTPUT_LIMIT_EXCEEDED, "output limit exceeded (1 MiB per stream)"));
    }

    @Test
    void timeLimitKeepsTheTracebackOfAnInterruptedProgram() {
        Task task = Task.of("x");
        Submission s = judge.prepare(task, "while True:\n    pass");
        String stderr = "Traceback (most recent call last):\n  File \"/w/main.py\", line 2, in <module>\n    pass\nKeyboardInterrupt\n";
        Execution timeout = new Execution(Outcome.TIME_LIMIT, null, 2, CapturedOutput.EMPTY, new CapturedOutput(stderr, false),
                Duration.ofSeconds(10), null, null, "wall time limit of 10s reached", ISOLATION);

        Verdict v = judge.judge(task, s, timeout);

        assertThat(v.kind()).isEqualTo(Verdict.Kind.TIME_LIMIT_EXCEEDED);
        assertThat(v.message()).isEqualTo("wall time limit of 10s reached");
        assertThat(v.error().line()).isEqualTo(2);
    }

    @Test
    void policyAndSandboxFailuresAreReportedWithTheirDetail() {
        Task task = Task.of("x");
        Submission s = judge.prepare(task, "import socket");

        assertThat(judge.judge(task, s, Execution.policyViolation("import of forbidden module 'socket' on line 1", ISOLATION)))
                .isEqualTo(Verdict.of(Verdict.Kind.POLICY_VIOLATION, "import of forbidden module 'socket' on line 1"));
        assertThat(judge.judge(task, s, Execution.sandboxError("could not start bwrap", Duration.ZERO, ISOLATION)))
                .isEqualTo(Verdict.of(Verdict.Kind.INTERNAL_ERROR, "sandbox error: could not start bwrap"));
    }

    @Test
    void failureWithoutATracebackNamesTheStatusOrSignal() {
        Task task = Task.of("x");
        Submission s = judge.prepare(task, "import sys\nsys.exit(3)");

        assertThat(judge.judge(task, s, ran(Outcome.RUNTIME_ERROR, 3, null, "", "")))
                .isEqualTo(Verdict.of(Verdict.Kind.RUNTIME_ERROR, "exited with status 3"));
        assertThat(judge.judge(task, s, ran(Outcome.RUNTIME_ERROR, 1, null, "", "bad input: no number\n")))
                .isEqualTo(Verdict.of(Verdict.Kind.RUNTIME_ERROR, "exited with status 1: bad input: no number"));
        assertThat(judge.judge(task, s, ran(Outcome.RUNTIME_ERROR, null, 11, "", "")))
                .isEqualTo(Verdict.of(Verdict.Kind.RUNTIME_ERROR, "killed by signal 11 (SIGSEGV)"));
    }

    @Test
    void otherLanguagesAreNotReadAsPythonTracebacks() {
        Task task = new Task("x", Language.JAVASCRIPT, null, null, "", ResourceLimits.defaults(), 3);
        Submission s = judge.prepare(task, "throw new Error('boom')");
        String stderr = "/w/main.js:1\nthrow new Error('boom')\n^\n\nError: boom\n    at Object.<anonymous> (/w/main.js:1:7)\n";

        Verdict v = judge.judge(task, s, failedWith(stderr));

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(v.message()).isEqualTo("exited with status 1: at Object.<anonymous> (/w/main.js:1:7)");
    }

    @Test
    void cleanExitWithoutExpectedOutputIsAccepted() {
        Task task = Task.of("x");
        assertThat(judge.judge(task, judge.prepare(task, "print(1)"), printed("1\n"))).isEqualTo(Verdict.accepted());
    }

    @Test
    void passingTestsAreAccepted() {
        Task task = new Task("add", Language.PYTHON, "assert add(1, 2) == 3", null, "", ResourceLimits.defaults(), 3);
        Submission s = judge.prepare(task, "def add(a, b):\n    return a + b");
        Execution ran = ran(Outcome.OK, 0, null, "", s.testsDoneMarker() + "\n");
        assertThat(judge.judge(task, s, ran).isAccepted()).isTrue();
    }

    @Test
    void codeThatExitsBeforeTheTestsRunIsAWrongAnswer() {
        Task task = new Task("add", Language.PYTHON, "assert add(1, 2) == 3", null, "", ResourceLimits.defaults(), 3);
        Submission s = judge.prepare(task, "import sys\nsys.exit(0)");
        Verdict v = judge.judge(task, s, printed(""));
        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.message()).contains("ended before its tests finished");
    }

    @Test
    void outputMatchingBarTrailingWhitespaceIsAccepted() {
        Task task = withExpectedOutput("1\n2\n3\n");
        Submission s = judge.prepare(task, "for i in range(3): print(i + 1)");

        assertThat(judge.judge(task, s, printed("1  \r\n2\t\r\n3\r\n\r\n\n")).isAccepted()).isTrue();
        assertThat(judge.judge(task, s, printed("1\n2\n3")).isAccepted()).isTrue();
    }

    @Test
    void differentOutputIsAWrongAnswerAtTheFirstDifferingLine() {
        Task task = withExpectedOutput("1\n2\n3\n");
        Submission s = judge.prepare(task, "print(1)");

        Verdict v = judge.judge(task, s, printed("1\n4\n3\n"));

        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.difference()).isEqualTo(new OutputDifference(2, "2", "4"));
        assertThat(v.message()).isEqualTo("wrong output at line 2: expected \"2\", got \"4\"");
        assertThat(judge.judge(task, s, printed("1\n2\n")).difference()).isEqualTo(new OutputDifference(3, "3", null));
        assertThat(judge.judge(task, s, printed("1\n2\n3\n4\n")).difference()).isEqualTo(new OutputDifference(4, null, "4"));
        assertThat(judge.judge(task, s, printed("  1\n2\n3\n")).difference())
                .as("leading whitespace counts").isEqualTo(new OutputDifference(1, "1", "  1"));
    }

    @Test
    void failedRunIsNotJudgedOnItsOutput() {
        Task task = withExpectedOutput("1\n");
        Corpus.Case c = Corpus.load("zero_division");

        Verdict v = judge.judge(task, judge.prepare(task, c.code), ran(Outcome.RUNTIME_ERROR, 1, null, "1\n", c.stderr));

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
    }

    @Test
    void longMessagesAreCut() {
        Task task = Task.of("x");
        String stderr = "Traceback (most recent call last):\n  File \"/w/main.py\", line 1, in <module>\n    raise ValueError('x' * 5000)\n"
                + "ValueError: " + "x".repeat(5000) + "\n";

        Verdict v = judge.judge(task, judge.prepare(task, "raise ValueError('x' * 5000)"), failedWith(stderr));

        assertThat(v.message()).hasSizeLessThanOrEqualTo(300).endsWith("...");
    }
}
