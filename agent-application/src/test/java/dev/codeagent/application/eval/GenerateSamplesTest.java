package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The generation path over the real agent loop, with a lambda for the model and a scripted sandbox. */
class GenerateSamplesTest {

    private static final Problem INC = new Problem("HumanEval/0", ProblemFormat.HUMANEVAL,
            "def inc(x):\n    \"\"\"Return x plus one.\"\"\"\n", "    return x + 1\n",
            "def check(candidate):\n    assert candidate(1) == 2\n", List.of(), "inc");
    private static final String WRONG = "```python\ndef inc(x):\n    return x\n```";
    private static final String RIGHT = "```python\ndef inc(x):\n    return x + 1\n```";
    private static final String ASSERTION = "Traceback (most recent call last):\n"
            + "  File \"/work/main.py\", line 8, in <module>\n    check(inc)\n"
            + "  File \"/work/main.py\", line 6, in check\n    assert candidate(1) == 2\nAssertionError\n";

    private final ScriptedSandbox sandbox = new ScriptedSandbox(r -> r.program().source().contains("return x + 1")
            ? ScriptedSandbox.testsPassed(r, "") : ScriptedSandbox.exited(1, "", ASSERTION));
    private final ExecuteCode executeCode = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 4, Duration.ofSeconds(5));
    private final List<GenerationRequest> requests = new CopyOnWriteArrayList<>();

    @Test
    void withoutRepairEachSampleIsTheModelsFirstAnswer() {
        AtomicInteger calls = new AtomicInteger();
        CodeGenerator model = generator(r -> calls.incrementAndGet() % 2 == 1 ? WRONG : RIGHT);
        GeneratedSamples generated = generate(model, 4, 0);

        assertThat(generated.samples()).hasSize(4).allMatch(s -> s.taskId().equals("HumanEval/0"));
        assertThat(generated.samples()).extracting(Sample::index).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(generated.samples()).extracting(Sample::completion)
                .containsOnly("def inc(x):\n    return x\n", "def inc(x):\n    return x + 1\n");
        assertThat(generated.samples()).isEqualTo(generated.firstAttempts());
        assertThat(generated.repairedRuns()).isZero();
        // the model is shown the function to complete; each run is a single attempt
        assertThat(requests).hasSize(4).allSatisfy(r -> {
            assertThat(r.task().prompt()).contains("def inc(x):").contains("Return x plus one.");
            assertThat(r.task().maxAttempts()).isEqualTo(1);
            assertThat(r.history()).isEmpty();
        });
    }

    @Test
    void repairAttemptsLetTheLoopFixAFailingSampleWithTheTestsFeedback() {
        CodeGenerator model = generator(r -> r.history().isEmpty() ? WRONG : RIGHT);
        GeneratedSamples generated = generate(model, 3, 2);

        assertThat(generated.firstAttempts()).extracting(Sample::completion).containsOnly("def inc(x):\n    return x\n");
        assertThat(generated.samples()).extracting(Sample::completion).containsOnly("def inc(x):\n    return x + 1\n");
        assertThat(generated.repairedRuns()).isEqualTo(3);
        GenerationRequest second = requests.stream().filter(r -> !r.history().isEmpty()).findFirst().orElseThrow();
        assertThat(second.history().get(0).feedback()).contains("assert candidate(1) == 2");

        // the samples then evaluate as HumanEval prescribes: pass@1 rises from 0 to 1 with the loop
        EvaluateSamples evaluate = new EvaluateSamples(executeCode, ResourceLimits.defaults(), 2);
        assertThat(evaluate.evaluate(List.of(INC), generated.firstAttempts(), EvaluationListener.NONE).passAtK().get(1))
                .isCloseTo(0.0, within(1e-12));
        assertThat(evaluate.evaluate(List.of(INC), generated.samples(), EvaluationListener.NONE).passAtK().get(1))
                .isCloseTo(1.0, within(1e-12));
    }

    @Test
    void aReplyWithoutCodeBecomesASampleThatIsNotRun() {
        GeneratedSamples generated = generate(generator(r -> "I cannot help with that."), 1, 0);
        assertThat(generated.samples().get(0).completion()).isEmpty();
        assertThat(generated.samples().get(0).generationError()).isEqualTo("the model's reply held no code");
    }

    @Test
    void givesUpWhenTheGeneratorKeepsFailing() {
        AtomicInteger calls = new AtomicInteger();
        CodeGenerator refusing = new CodeGenerator() {
            @Override
            public String generate(GenerationRequest request) {
                calls.incrementAndGet();
                throw new GeneratorException(GeneratorException.Kind.AUTHENTICATION, "the endpoint refused the API key (401)");
            }

            @Override
            public String describe() {
                return "refusing";
            }
        };
        GenerateSamples generate = new GenerateSamples(solveTask(refusing), ResourceLimits.defaults(), 1);
        assertThatThrownBy(() -> generate.generate(List.of(INC), 50, 0, GenerationListener.NONE))
                .isInstanceOf(EvaluationException.class)
                .hasMessage("the generator failed 3 times in a row; last: the endpoint refused the API key (401)");
        assertThat(calls.get()).isEqualTo(GenerateSamples.GIVE_UP_AFTER);
    }

    @Test
    void refusesBadCounts() {
        GenerateSamples generate = new GenerateSamples(solveTask(generator(r -> RIGHT)), ResourceLimits.defaults(), 1);
        assertThatThrownBy(() -> generate.generate(List.of(INC), 0, 0, GenerationListener.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> generate.generate(List.of(INC), 1, 20, GenerationListener.NONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("between 0 and 19");
    }

    private GeneratedSamples generate(CodeGenerator model, int samples, int repairs) {
        List<Integer> done = new CopyOnWriteArrayList<>();
        GeneratedSamples generated = new GenerateSamples(solveTask(model), ResourceLimits.defaults(), 2)
                .generate(List.of(INC), samples, repairs, (sample, run, n, total) -> done.add(n));
        assertThat(done).hasSize(samples).last().isEqualTo(samples);
        return generated;
    }

    private SolveTask solveTask(CodeGenerator model) {
        return new SolveTask(model, executeCode, new InMemoryRunLog(),
                new SolveConfig(3, Duration.ofMinutes(1), 1, Duration.ofMillis(1)), Clock.systemUTC());
    }

    private CodeGenerator generator(java.util.function.Function<GenerationRequest, String> replies) {
        return new CodeGenerator() {
            @Override
            public String generate(GenerationRequest request) {
                requests.add(request);
                return replies.apply(request);
            }

            @Override
            public String describe() {
                return "lambda";
            }
        };
    }
}
