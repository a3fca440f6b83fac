package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole benchmark pipeline over the real loop, judge and results file, with a scripted sandbox and model. */
class RunBenchmarkTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Problem INC = new Problem("HumanEval/0", ProblemFormat.HUMANEVAL,
            "def inc(x):\n    \"\"\"Return x plus one.\"\"\"\n", "    return x + 1\n",
            "def check(candidate):\n    assert candidate(1) == 2\n", List.of(), "inc");
    private static final String WRONG = "```python\ndef inc(x):\n    return x\n```";
    private static final String RIGHT = "```python\ndef inc(x):\n    return x + 1\n```";
    private static final ProblemSet PROBLEMS = new ProblemSet(ProblemFormat.HUMANEVAL, List.of(INC), List.of());

    @TempDir
    Path dir;

    private final ScriptedSandbox sandbox = new ScriptedSandbox(r -> r.program().source().contains("return x + 1")
            ? ScriptedSandbox.testsPassed(r, "") : ScriptedSandbox.exited(1, "", "Traceback (most recent call last):\n"
                    + "  File \"/work/main.py\", line 6, in check\n    assert candidate(1) == 2\nAssertionError\n"));
    private final ExecuteCode executeCode = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 4, Duration.ofSeconds(5));
    private final List<RunLog> loopLogs = new CopyOnWriteArrayList<>();

    @Test
    void generatesRepairsAndMeasuresTheRepairsGainWritingEachResultWithItsCode() throws IOException {
        CodeGenerator model = request -> request.history().isEmpty() ? WRONG : RIGHT;
        List<String> phases = new CopyOnWriteArrayList<>();
        Path out = dir.resolve("results.jsonl");

        RunBenchmark.Result r;
        try (ResultLines lines = ResultLines.open(out)) {
            r = benchmark(model).run(new RunBenchmark.Command(PROBLEMS, null, new RunBenchmark.Generation(3, 1), 2), lines,
                    new RunBenchmark.Listener() {
                        @Override
                        public void generating(int done, int total) {
                            phases.add("generating " + done + "/" + total);
                        }

                        @Override
                        public void generated() {
                            phases.add("generated");
                        }

                        @Override
                        public void evaluated(EvaluationProgress progress) {
                            phases.add("evaluated " + progress.done() + "/" + progress.total());
                        }
                    });
        }

        assertThat(r.report().passed()).isEqualTo(3);
        assertThat(r.beforeRepair()).isNotNull();
        assertThat(r.beforeRepair().passed()).isZero();
        assertThat(r.generated().repairedRuns()).isEqualTo(3);
        assertThat(r.sandbox()).isEqualTo(sandbox.tier());
        assertThat(phases).containsSubsequence("generating 3/3", "generated", "evaluated 3/3");
        assertThat(phases.indexOf("generated")).isGreaterThan(phases.indexOf("generating 3/3"));
        List<JsonNode> written = read(out);
        assertThat(written).hasSize(3).allSatisfy(line -> {
            assertThat(line.get("task_id").asText()).isEqualTo("HumanEval/0");
            assertThat(line.get("passed").asBoolean()).isTrue();
            assertThat(line.get("completion").asText()).contains("return x + 1");
        });
        // the benchmark's runs went to a scratch log of their own, not to the configured history
        assertThat(loopLogs).hasSize(1);
        assertThat(loopLogs.get(0).recent(10, null)).hasSize(3);
    }

    @Test
    void withoutSamplesOrAGeneratorItChecksTheReferencesAndNeverAsksForTheLoop() {
        RunBenchmark.Command command = new RunBenchmark.Command(PROBLEMS, null, null, 1);
        RunBenchmark.Result r = new RunBenchmark(executeCode, log -> {
            throw new AssertionError("no loop is needed to check references");
        }, ResourceLimits.defaults()).run(command, ResultLines.none(), RunBenchmark.Listener.NONE);

        assertThat(command.checksReferences()).isTrue();
        assertThat(r.report().total()).isEqualTo(1);
        assertThat(r.report().passed()).isEqualTo(1);
        assertThat(r.beforeRepair()).isNull();
        assertThat(r.generated()).isNull();
    }

    @Test
    void givenSamplesAreCheckedAsTheyAreWithoutCompletionsInTheResults() throws IOException {
        SampleSet samples = new SampleSet(List.of(new Sample("HumanEval/0", 0, "    return x\n"),
                new Sample("HumanEval/0", 1, "    return x + 1\n")), List.of());
        Path out = dir.resolve("given.jsonl");
        RunBenchmark.Result r;
        try (ResultLines lines = ResultLines.open(out)) {
            r = benchmark(request -> RIGHT).run(new RunBenchmark.Command(PROBLEMS, samples, null, 2), lines, RunBenchmark.Listener.NONE);
        }
        assertThat(r.report().passed()).isEqualTo(1);
        assertThat(r.report().total()).isEqualTo(2);
        List<JsonNode> written = read(out);
        assertThat(written).extracting(l -> l.get("passed").asBoolean()).containsExactlyInAnyOrder(true, false);
        assertThat(written).allSatisfy(l -> assertThat(l.has("completion")).isFalse());
        assertThat(loopLogs).isEmpty();
    }

    @Test
    void refusesCommandsThatCannotBeRun() {
        SampleSet samples = new SampleSet(List.of(new Sample("HumanEval/0", 0, "    return x\n")), List.of());
        assertThatThrownBy(() -> new RunBenchmark.Command(PROBLEMS, samples, new RunBenchmark.Generation(1, 0), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RunBenchmark.Generation(0, 0)).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new RunBenchmark.Generation(1, 20)).hasMessageContaining("between 0 and 19");
    }

    @Test
    void aResultsFileThatCannotBeOpenedSaysWhich() {
        assertThatThrownBy(() -> ResultLines.open(dir))
                .isInstanceOf(EvaluationException.class).hasMessageStartingWith(dir + ": cannot write");
    }

    private RunBenchmark benchmark(CodeGenerator model) {
        Function<RunLog, SolveTask> loops = log -> {
            loopLogs.add(log);
            return new SolveTask(model, executeCode, log, new SolveConfig(3, Duration.ofMinutes(1), 1, Duration.ofMillis(1)),
                    Clock.systemUTC());
        };
        return new RunBenchmark(executeCode, loops, ResourceLimits.defaults());
    }

    private static List<JsonNode> read(Path file) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            lines.add(JSON.readTree(line));
        }
        return lines;
    }
}
