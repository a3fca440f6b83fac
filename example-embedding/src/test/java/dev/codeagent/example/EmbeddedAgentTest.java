package dev.codeagent.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Proves the embedding front door with nothing but agent-application and the process adapter on the classpath. */
class EmbeddedAgentTest {

    @Test
    void anEmbeddedExecutorRunsCodeInTheConfiguredSandbox() {
        Execution e = EmbeddedAgent.run("process", "import sys\nprint(sum(range(10)))\nprint('err', file=sys.stderr)");
        assertThat(e.outcome()).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("45\n");
        assertThat(e.stderr().text()).isEqualTo("err\n");
        assertThat(e.isolation().tier()).isEqualTo("process");
    }

    @Test
    void anEmbeddedSessionKeepsStateBetweenCellsInTheConfiguredSandbox() throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import ipykernel, jupyter_client").start();
        org.junit.jupiter.api.Assumptions.assumeTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0,
                "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        List<CellResult> results = EmbeddedAgent.session("process", "import math\nr = 2", "print(round(math.pi * r ** 2, 3))");
        assertThat(results).extracting(CellResult::status).containsExactly(CellStatus.OK, CellStatus.OK);
        assertThat(results.get(1).outputs()).singleElement().isInstanceOfSatisfying(CellOutput.Stream.class,
                s -> assertThat(s.text()).isEqualTo("12.566\n"));
    }

    @Test
    void anEmbeddedAgentFixesItsCodeFromTheFeedback() {
        Task task = new Task("write middle(xs) returning the middle element", Language.PYTHON,
                "assert middle([1, 2, 3]) == 2\nassert middle([5]) == 5", null, "", ResourceLimits.defaults(), 3);
        Run run = EmbeddedAgent.solve(request -> request.history().isEmpty()
                ? "```python\ndef middle(xs):\n    return xs[len(xs)]\n```"
                : "```python\ndef middle(xs):\n    return xs[len(xs) // 2]\n```", task);
        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(run.attempts()).hasSize(2);
        Verdict first = run.attempts().get(0).verdict();
        assertThat(first.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(first.error().type()).isEqualTo("IndexError");
        assertThat(first.error().line()).isEqualTo(2);
        assertThat(first.error().sourceLine()).contains("return xs[len(xs)]");
    }

    @Test
    void aGuiceProgramInstallsTheModulesAndItsOwnGeneratorWins() {
        Task task = new Task("write double(x)", Language.PYTHON, "assert double(2) == 4", null, "", ResourceLimits.defaults(), 2);
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        Run run = EmbeddedAgent.solveInYourInjector(request -> {
            asked.incrementAndGet();
            return "```python\ndef double(x):\n    return 2 * x\n```";
        }, task);
        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(run.attempts()).hasSize(1);
        // ran in the configured process sandbox, judged by its tests, with the program's own generator
        assertThat(run.attempts().get(0).execution().isolation().tier()).isEqualTo("process");
        assertThat(asked).hasValue(1);
    }
}
