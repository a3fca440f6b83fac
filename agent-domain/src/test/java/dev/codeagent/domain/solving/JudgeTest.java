package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.List;
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

    /** A recorded traceback, read as an unjudged run's (tests appended to the program, as tasks once had them). */
    private Verdict judgeCorpus(String name) {
        Corpus.Case c = Corpus.load(name);
        return judge.judge(c.task(), judge.prepare(c.task(), c.code, null), failedWith(c.stderr));
    }

    private static final Task ADD = new Task("add", Language.PYTHON, "assert add(1, 2) == 3", null, "", ResourceLimits.defaults(), 3);

    private Verdict judged(Outcome outcome, Integer exit, Integer signal, JudgeReport report) {
        Submission s = judge.prepare(ADD, "def add(a, b):\n    return a + b\n");
        Execution e = ran(outcome, exit, signal, "", "");
        return judge.judge(ADD, s, report == null ? e : e.withJudgement(report));
    }

    private static JudgeReport report(JudgeReport.Outcome outcome, String message) {
        return new JudgeReport(outcome, message, null, null, List.of(), null);
    }

    @Test
    void preparesTheCodeAloneWithTheTestsForTheJudge() {
        Submission s = judge.prepare(ADD, "def add(a, b):\n    return a + b");

        assertThat(s.program().source()).as("the tests are never part of the program").isEqualTo("def add(a, b):\n    return a + b");
        assertThat(s.judging()).isEqualTo(JudgeJob.of("assert add(1, 2) == 3"));
        assertThat(s.request("", ResourceLimits.defaults()).judging()).isEqualTo(s.judging());
        assertThat(s.program().language()).isEqualTo(Language.PYTHON);
        assertThat(s.codeFirstLine()).isEqualTo(1);
        assertThat(s.codeLineCount()).isEqualTo(2);
        assertThat(s.codeLine(2)).isEqualTo(2);
        assertThat(s.codeLine(3)).isNull();
    }

    @Test
    void refusesTestsItCannotJudgeOutOfTheCodesReach() {
        Task js = new Task("add", Language.JAVASCRIPT, "assert(add(1, 2) === 3)", null, "", ResourceLimits.defaults(), 3);

        assertThatThrownBy(() -> judge.prepare(js, "const add = (a, b) => a + b;"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Python only");
        assertThat(Judge.judgesTests(Language.PYTHON)).isTrue();
        assertThat(Judge.judgesTests(Language.BASH)).isFalse();
    }

    @Test
    void onlyTheJudgesPassingReportIsAccepted() {
        assertThat(judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.PASSED, "")).isAccepted()).isTrue();
        Verdict none = judged(Outcome.OK, 0, null, null);
        assertThat(none.kind()).as("a clean exit with no report").isEqualTo(Verdict.Kind.INTERNAL_ERROR);
        assertThat(none.message()).startsWith("the judge gave no verdict");
        assertThat(judged(Outcome.TIME_LIMIT, null, 9, report(JudgeReport.Outcome.PASSED, "")).kind())
                .as("a limit the sandbox enforced wins").isEqualTo(Verdict.Kind.TIME_LIMIT_EXCEEDED);
    }

    /** The judge may send calls ahead: a limit the candidate reached computing one after a failed test decides nothing. */
    @Test
    void aFailureTheJudgeReadInTheRepliesStandsOverALimitReachedAfterIt() {
        for (Outcome limit : List.of(Outcome.TIME_LIMIT, Outcome.MEMORY_LIMIT, Outcome.OUTPUT_LIMIT)) {
            assertThat(judged(limit, null, 9, report(JudgeReport.Outcome.ASSERTION, "failed assertion: add(1, 2) == 3")).kind())
                    .as("a failed assertion, then %s", limit).isEqualTo(Verdict.Kind.WRONG_ANSWER);
            assertThat(judged(limit, null, 9, report(JudgeReport.Outcome.NOT_DATA, "a generator")).kind())
                    .isEqualTo(Verdict.Kind.WRONG_ANSWER);
            assertThat(judged(limit, null, 9, report(JudgeReport.Outcome.RAISED, "ValueError: x")).kind())
                    .isEqualTo(Verdict.Kind.RUNTIME_ERROR);
            assertThat(judged(limit, null, 9, report(JudgeReport.Outcome.TESTS_ERROR, "TypeError: x")).kind())
                    .isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        }
        // the program's end, or a protocol broken, may be the limit's own doing: the limit decides
        assertThat(judged(Outcome.TIME_LIMIT, null, 9, report(JudgeReport.Outcome.ENDED, "the program ended")).kind())
                .isEqualTo(Verdict.Kind.TIME_LIMIT_EXCEEDED);
        assertThat(judged(Outcome.MEMORY_LIMIT, null, 9, report(JudgeReport.Outcome.PROTOCOL, "a frame cut short")).kind())
                .isEqualTo(Verdict.Kind.MEMORY_LIMIT_EXCEEDED);
        assertThat(judged(Outcome.SANDBOX_ERROR, null, 9, report(JudgeReport.Outcome.ASSERTION, "failed")).kind())
                .as("the sandbox's own failure is never the program's verdict").isEqualTo(Verdict.Kind.INTERNAL_ERROR);
    }

    @Test
    void passedTestsStillCompareTheExpectedOutput() {
        Task task = new Task("add", Language.PYTHON, "assert add(1, 2) == 3", "3\n", "", ResourceLimits.defaults(), 3);
        Submission s = judge.prepare(task, "def add(a, b):\n    return a + b\nprint(4)");
        Execution e = ran(Outcome.OK, 0, null, "4\n", "").withJudgement(report(JudgeReport.Outcome.PASSED, ""));

        assertThat(judge.judge(task, s, e).difference()).isEqualTo(new OutputDifference(1, "3", "4"));
    }

    @Test
    void aFailedAssertionOfTheJudgeIsAWrongAnswerStandingOnTheTestsLine() {
        Verdict v = judged(Outcome.OK, 0, null, new JudgeReport(JudgeReport.Outcome.ASSERTION,
                "failed assertion: assert add(1, 2) == 3 - sums", 1, "assert add(1, 2) == 3",
                List.of("add(1, 2) returned 4"), null));

        assertThat(v.kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(v.message()).isEqualTo("failed assertion: assert add(1, 2) == 3 - sums");
        assertThat(v.error().type()).isEqualTo("AssertionError");
        assertThat(v.error().message()).isEqualTo("sums");
        assertThat(v.error().line()).as("not a line of the code").isNull();
        assertThat(v.error().frames()).containsExactly(new Frame(Judge.TESTS_FILE, 1, "<module>", "assert add(1, 2) == 3", null));
    }

    @Test
    void anExceptionOfTheCodeIsARuntimeErrorOnItsLineOfTheCode() {
        JudgeReport raised = new JudgeReport(JudgeReport.Outcome.RAISED, "ZeroDivisionError: division by zero", 1,
                "assert add(1, 0) == 1", List.of("add(1, 0) raised ZeroDivisionError"),
                new JudgeReport.RaisedError("ZeroDivisionError", "division by zero",
                        List.of(new JudgeReport.ReportedFrame("/work/main.py", 2, "add", "    return a / b"))));
        Verdict v = judged(Outcome.OK, 0, null, raised);

        assertThat(v.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(v.error().line()).isEqualTo(2);
        assertThat(v.error().sourceLine()).isEqualTo("return a / b");
        assertThat(v.message()).isEqualTo("ZeroDivisionError: division by zero (line 2: return a / b)");

        JudgeReport memory = new JudgeReport(JudgeReport.Outcome.RAISED, "MemoryError: ", null, null, List.of(),
                new JudgeReport.RaisedError("MemoryError", "", List.of()));
        assertThat(judged(Outcome.OK, 0, null, memory).kind()).isEqualTo(Verdict.Kind.MEMORY_LIMIT_EXCEEDED);
    }

    @Test
    void theJudgesOtherReportsAreNeverAPass() {
        assertThat(judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.ENDED, "the program called sys.exit(0)")).kind())
                .as("ending cleanly before the tests").isEqualTo(Verdict.Kind.WRONG_ANSWER);
        Verdict crashed = judged(Outcome.RUNTIME_ERROR, null, 11, report(JudgeReport.Outcome.ENDED, "the program ended"));
        assertThat(crashed.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(crashed.message()).isEqualTo("the program ended (it was killed by signal 11 (SIGSEGV))");
        assertThat(judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.NOT_DATA, "returned an object that cannot be "
                + "compared: Foo")).kind()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.PROTOCOL, "broke the protocol")).kind())
                .isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.TESTS_ERROR, "NameError: name 'add' is not "
                + "defined")).message()).isEqualTo("the tests failed: NameError: name 'add' is not defined");
        assertThat(judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.TESTS, "a lambda cannot be sent")).kind())
                .as("the task's fault, not the code's").isEqualTo(Verdict.Kind.INTERNAL_ERROR);
        Verdict unjudgeable = judged(Outcome.OK, 0, null, report(JudgeReport.Outcome.UNJUDGEABLE,
                "the tests passed f(<lambda>) a function, which cannot cross to the code under test as data"));
        assertThat(unjudgeable.kind()).isEqualTo(Verdict.Kind.INTERNAL_ERROR);
        assertThat(unjudgeable.message()).startsWith("the tests cannot judge this program: the tests passed f(");
        JudgeReport syntax = new JudgeReport(JudgeReport.Outcome.SYNTAX, "SyntaxError: expected ':'", null, null, List.of(),
                new JudgeReport.RaisedError("SyntaxError", "expected ':'",
                        List.of(new JudgeReport.ReportedFrame("main.py", 1, "<module>", "def add(a, b)"))));
        assertThat(judged(Outcome.OK, 0, null, syntax).message()).isEqualTo("SyntaxError: expected ':' (line 1: def add(a, b))");
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

    @Test
    void codeAfterASessionsCellsRunsAfterThemAndKeepsItsLineNumbers() throws Exception {
        String prelude = "data = [3, 1, 2]\nprint('noise \\\\ \"quoted\" \\t tab \u00e9 \ud83d\ude00')";
        Submission s = new Judge().prepareAfter(Task.of("sort"), prelude, "def f():\n    return sorted(data)\nprint(f())");
        assertThat(s.codeFirstLine()).isEqualTo(4);
        assertThat(s.codeLine(5)).isEqualTo(2);
        assertThat(s.codeLine(3)).isNull();
        assertThat(new Judge().prepareAfter(Task.of("sort"), " ", "x = 1").program().source()).isEqualTo("x = 1");
        java.nio.file.Path python = java.nio.file.Path.of("/usr/bin/python3");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(python), "needs /usr/bin/python3");
        Process p = new ProcessBuilder(python.toString(), "-I", "-c", s.program().source()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).as("the prelude ran, its output is not the program's").isEqualTo("[1, 2, 3]\n");
        Process lit = new ProcessBuilder(python.toString(), "-I", "-c", "import sys\nsys.stdout.buffer.write(("
                + Judge.pythonLiteral(prelude) + ").encode())").start();
        assertThat(new String(lit.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(prelude);
    }

    @Test
    void compilationErrorNamesFileLineColumnAndTheCodesLine() {
        Task task = new Task("print 42", Language.JAVA, null, "42\n", "", ResourceLimits.defaults(), 3);
        String code = "public class Answer {\n  public static void main(String[] a) {\n    System.out.println(x);\n  }\n}\n";
        Submission s = judge.prepare(task, code);
        Execution stage = ran(Outcome.RUNTIME_ERROR, 1, null, "", "Answer.java:3: error: cannot find symbol\n"
                + "    System.out.println(x);\n                       ^\n  symbol:   variable x\n1 error\n");
        Verdict v = judge.judge(task, s, Execution.compilationFailed(stage, "compilation failed: ..."));
        assertThat(v.kind()).isEqualTo(Verdict.Kind.COMPILATION_ERROR);
        assertThat(v.message()).isEqualTo("Answer.java:3:24: cannot find symbol");
        assertThat(v.error().line()).isEqualTo(3);
        assertThat(v.error().sourceLine()).isEqualTo("System.out.println(x);");
        assertThat(v.error().message()).isEqualTo("column 24: cannot find symbol");
        assertThat(v.headline()).as("the compiler's own words").isEqualTo("COMPILATION_ERROR Answer.java:3:24: cannot find symbol");
    }

    @Test
    void compileLimitIsACompilationErrorWithTheStagesReason() {
        Task task = new Task("t", Language.CPP, null, "1\n", "", ResourceLimits.defaults(), 3);
        Execution stage = ran(Outcome.TIME_LIMIT, null, 9, "", "");
        Verdict v = judge.judge(task, judge.prepare(task, "int main(){}"),
                Execution.compilationFailed(stage, "the compiler ran out of time (compile limits: wall 30000 ms, CPU 30000 ms)"));
        assertThat(v.kind()).isEqualTo(Verdict.Kind.COMPILATION_ERROR);
        assertThat(v.message()).startsWith("the compiler ran out of time");
        assertThat(v.error()).isNull();
    }
}
