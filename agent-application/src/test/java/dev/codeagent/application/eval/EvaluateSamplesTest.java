package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Orchestration only: the sandbox is scripted here; real programs run in adapter-cli's eval ITs. */
class EvaluateSamplesTest {

    private static final Problem INC = new Problem("HumanEval/0", ProblemFormat.HUMANEVAL, "def inc(x):\n",
            "    return x + 1\n", "def check(candidate):\n    assert candidate(1) == 2\n", List.of(), "inc");
    private static final Problem DEC = new Problem("HumanEval/1", ProblemFormat.HUMANEVAL, "def dec(x):\n",
            "    return x - 1\n", "def check(candidate):\n    assert candidate(1) == 0\n", List.of(), "dec");
    /**
     * Accepts programs with the right body, fails the assertion otherwise (as the judge reports it), loops forever
     * on "while", and ends before the tests on "sys.exit(0)".
     */
    private static Execution python(ExecutionRequest r) {
        String source = r.program().source();
        if (source.contains("while True")) {
            return ScriptedSandbox.ended(Outcome.TIME_LIMIT, "wall time limit");
        }
        if (source.contains("sys.exit(0)")) {
            return ScriptedSandbox.exited(0, "", "").withJudgement(ScriptedSandbox.judged(JudgeReport.Outcome.ENDED,
                    "the program called sys.exit(0) before the tests started"));
        }
        boolean right = source.contains("return x + 1") || source.contains("return x - 1");
        return right ? ScriptedSandbox.testsPassed(r, "") : ScriptedSandbox.exited(0, "", "").withJudgement(
                new JudgeReport(JudgeReport.Outcome.ASSERTION, "failed assertion: assert candidate(1) == 2", 2,
                        "    assert candidate(1) == 2", List.of("candidate(1) returned 1"), null));
    }

    @Test
    void judgesEverySampleAndReportsPassAtKAndVerdicts() {
        List<Sample> samples = List.of(
                new Sample("HumanEval/0", 0, "    return x + 1\n"),
                new Sample("HumanEval/0", 1, "    return x\n"),
                new Sample("HumanEval/1", 0, "    while True: pass\n"),
                new Sample("HumanEval/1", 1, "    return x - 1\n"));
        EvaluationReport report = evaluator(new ScriptedSandbox(EvaluateSamplesTest::python), 4)
                .evaluate(List.of(INC, DEC), samples, EvaluationListener.NONE);

        assertThat(report.total()).isEqualTo(4);
        assertThat(report.passed()).isEqualTo(2);
        assertThat(report.problems()).isEqualTo(2);
        assertThat(report.passAtK()).containsOnlyKeys(1);
        assertThat(report.passAtK().get(1)).isCloseTo(0.5, within(1e-12));
        assertThat(report.verdicts()).containsEntry(Verdict.Kind.ACCEPTED, 2)
                .containsEntry(Verdict.Kind.WRONG_ANSWER, 1).containsEntry(Verdict.Kind.TIME_LIMIT_EXCEEDED, 1)
                .hasSize(3);
        // results come back in input order whatever order they finished in
        assertThat(report.results()).extracting(r -> r.taskId() + "#" + r.sampleIndex() + " " + r.verdict()).containsExactly(
                "HumanEval/0#0 ACCEPTED", "HumanEval/0#1 WRONG_ANSWER", "HumanEval/1#0 TIME_LIMIT_EXCEEDED", "HumanEval/1#1 ACCEPTED");
        SampleResult wrong = report.results().get(1);
        assertThat(wrong.message()).contains("failed assertion: assert candidate(1) == 2");
        assertThat(wrong.error().type()).isEqualTo("AssertionError");
        assertThat(wrong.outcome()).as("the code itself ran cleanly; the judge's tests failed").isEqualTo(Outcome.OK);
    }

    @Test
    void aProblemWhoseTestsCannotLoadIsRunOnceAndNotJudgedNorCountedInPassAtK() {
        Problem broken = new Problem("Broken/0", ProblemFormat.HUMANEVAL, "def inc(x):\n", "    return x + 1\n",
                "def check(candidate):\n    assert candidate(1) == = 2\n", List.of(), "inc");
        ScriptedSandbox sandbox = new ScriptedSandbox(r -> r.judging() != null && r.judging().tests().contains("== =")
                ? ScriptedSandbox.exited(0, "", "").withJudgement(ScriptedSandbox.judged(JudgeReport.Outcome.TESTS,
                        "the tests do not compile (the problem's fault, not the code's): SyntaxError: invalid syntax"))
                : python(r));
        List<Sample> samples = List.of(
                new Sample("Broken/0", 0, "    return x + 1\n"),
                new Sample("HumanEval/0", 0, "    return x + 1\n"),
                new Sample("Broken/0", 1, "    return x\n"),
                new Sample("HumanEval/0", 1, "    return x\n"),
                new Sample("Broken/0", 2, "    return x + 1\n"));
        EvaluationReport report = evaluator(sandbox, 1).evaluate(List.of(broken, INC), samples, EvaluationListener.NONE);

        assertThat(sandbox.requests()).as("the broken problem's tests are tried once, by its first sample").hasSize(3);
        assertThat(report.problemErrors()).containsOnlyKeys("Broken/0");
        assertThat(report.problemErrors().get("Broken/0")).contains("SyntaxError");
        assertThat(report.total()).isEqualTo(5);
        assertThat(report.notJudged()).isEqualTo(3);
        assertThat(report.problems()).as("problems that could be judged").isEqualTo(1);
        assertThat(report.passed()).isEqualTo(1);
        assertThat(report.passAtK().get(1)).as("over the good problem only").isCloseTo(0.5, within(1e-12));
        assertThat(report.verdicts()).containsOnlyKeys(Verdict.Kind.ACCEPTED, Verdict.Kind.WRONG_ANSWER);
        assertThat(report.failures()).extracting(SampleResult::taskId).containsExactly("HumanEval/0");
        assertThat(report.results()).filteredOn(r -> r.taskId().equals("Broken/0"))
                .allSatisfy(r -> assertThat(r.message()).startsWith("not judged: the tests do not compile"));
    }

    @Test
    void aSampleTheTestsCannotJudgeIsThatSamplesInternalErrorAndNeverMarksTheProblemBroken() {
        // which call the tests reach, and with what, is the code's doing: a sample whose values made the tests'
        // call unsendable once marked the problem's tests broken, and every other sample of it went unjudged
        ScriptedSandbox sandbox = new ScriptedSandbox(r -> r.program().source().contains("return x + 1")
                ? python(r)
                : ScriptedSandbox.exited(0, "", "").withJudgement(ScriptedSandbox.judged(JudgeReport.Outcome.UNJUDGEABLE,
                        "the tests passed inc([...]) a value nested deeper than 200 levels (the cap), their own part alone")));
        List<Sample> samples = List.of(
                new Sample("HumanEval/0", 0, "    return [x]\n"),
                new Sample("HumanEval/0", 1, "    return x + 1\n"),
                new Sample("HumanEval/0", 2, "    return x + 1\n"));
        EvaluationReport report = evaluator(sandbox, 1).evaluate(List.of(INC), samples, EvaluationListener.NONE);

        assertThat(report.problemErrors()).isEmpty();
        assertThat(report.notJudged()).isZero();
        assertThat(report.results()).extracting(r -> r.verdict())
                .containsExactly(Verdict.Kind.INTERNAL_ERROR, Verdict.Kind.ACCEPTED, Verdict.Kind.ACCEPTED);
        assertThat(report.results().get(0).message()).startsWith("the tests cannot judge this program: ");
        assertThat(sandbox.requests()).as("every sample ran").hasSize(3);
    }

    @Test
    void runsTheDatasetsProgramForEachSample() {
        ScriptedSandbox sandbox = new ScriptedSandbox(EvaluateSamplesTest::python);
        ResourceLimits limits = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(3));
        new EvaluateSamples(new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 2, Duration.ofSeconds(5)), limits, 2)
                .evaluate(List.of(INC), List.of(new Sample("HumanEval/0", 0, "    return x + 1\n")), EvaluationListener.NONE);
        ExecutionRequest request = sandbox.requests().get(0);
        assertThat(request.program().source()).as("the code alone: the tests are the judge's")
                .isEqualTo("def inc(x):\n    return x + 1\n");
        assertThat(request.judging().tests()).contains("check(inc)");
        assertThat(request.judging().entryPoints()).containsExactly("inc");
        assertThat(request.limits()).isEqualTo(limits);
    }

    @Test
    void streamsResultsOneAtATimeAndNeverRunsMoreThanItsWorkers() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ScriptedSandbox slow = new ScriptedSandbox(r -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running.decrementAndGet();
            return python(r);
        });
        List<Sample> samples = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            samples.add(new Sample("HumanEval/0", i, i % 4 == 0 ? "    return x\n" : "    return x + 1\n"));
        }
        List<EvaluationProgress> seen = new CopyOnWriteArrayList<>();
        AtomicInteger inListener = new AtomicInteger();
        EvaluationReport report = evaluator(slow, 3).evaluate(List.of(INC), samples, (result, progress) -> {
            assertThat(inListener.incrementAndGet()).as("listener calls overlap").isEqualTo(1);
            seen.add(progress);
            inListener.decrementAndGet();
        });
        assertThat(most.get()).isBetween(1, 3);
        assertThat(seen).extracting(EvaluationProgress::done).containsExactlyElementsOf(range(1, 40));
        assertThat(seen.get(39).passed()).isEqualTo(30);
        assertThat(seen.get(39).total()).isEqualTo(40);
        assertThat(report.passAtK().get(1)).isCloseTo(0.75, within(1e-12));
        assertThat(report.workers()).isEqualTo(3);
    }

    @Test
    void aProgramThatExitsBeforeItsTestsRunFails() {
        EvaluationReport report = evaluator(new ScriptedSandbox(EvaluateSamplesTest::python), 1).evaluate(List.of(INC),
                List.of(new Sample("HumanEval/0", 0, "    import sys\n    sys.exit(0)\n")), EvaluationListener.NONE);
        assertThat(report.results().get(0).verdict()).isEqualTo(Verdict.Kind.WRONG_ANSWER);
        assertThat(report.results().get(0).message()).contains("sys.exit(0) before the tests started");
    }

    @Test
    void samplesWithoutCodeOrWithANulByteAreJudgedWithoutRunning() {
        ScriptedSandbox sandbox = new ScriptedSandbox(EvaluateSamplesTest::python);
        EvaluationReport report = evaluator(sandbox, 2).evaluate(List.of(INC), List.of(
                new Sample("HumanEval/0", 0, "", "the model's reply held no code"),
                new Sample("HumanEval/0", 1, "    return x\0\n")), EvaluationListener.NONE);
        assertThat(report.results()).extracting(SampleResult::verdict)
                .containsExactly(Verdict.Kind.INTERNAL_ERROR, Verdict.Kind.SYNTAX_ERROR);
        assertThat(report.results().get(0).message()).isEqualTo("no completion: the model's reply held no code");
        assertThat(report.results().get(1).message()).contains("NUL");
        assertThat(sandbox.requests()).isEmpty();
    }

    @Test
    void aSandboxThatKeepsFailingGivesInternalErrorsNotACrash() {
        Function<ExecutionRequest, Execution> broken = r -> ScriptedSandbox.ended(Outcome.SANDBOX_ERROR, "bwrap: cannot mount");
        EvaluationReport report = evaluator(new ScriptedSandbox(broken), 2)
                .evaluate(List.of(INC), List.of(new Sample("HumanEval/0", 0, "    return x + 1\n")), EvaluationListener.NONE);
        assertThat(report.results().get(0).verdict()).isEqualTo(Verdict.Kind.INTERNAL_ERROR);
        assertThat(report.results().get(0).message()).contains("bwrap: cannot mount");
    }

    @Test
    void refusesSamplesOfUnknownTasksAndNoWorkers() {
        assertThatThrownBy(() -> evaluator(new ScriptedSandbox(EvaluateSamplesTest::python), 1)
                .evaluate(List.of(INC), List.of(new Sample("HumanEval/7", 0, "")), EvaluationListener.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("HumanEval/7");
        assertThatThrownBy(() -> evaluator(new ScriptedSandbox(EvaluateSamplesTest::python), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void usesNoMoreWorkersThanTheExecutorAdmits() {
        ExecuteCode two = new ExecuteCode(new ScriptedSandbox(EvaluateSamplesTest::python), CodePolicy.permissive(), 1 << 20, 2,
                Duration.ofSeconds(5));
        assertThat(new EvaluateSamples(two, ResourceLimits.defaults(), 16).workers()).isEqualTo(2);
    }

    private static EvaluateSamples evaluator(ScriptedSandbox sandbox, int workers) {
        ExecuteCode execute = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, Math.max(1, workers), Duration.ofSeconds(5));
        return new EvaluateSamples(execute, ResourceLimits.defaults().withWallTime(Duration.ofSeconds(3)), workers);
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> r = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            r.add(i);
        }
        return r;
    }
}
