package dev.codeagent.application.solve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SolveTaskTest {

    private static final String GOOD = "```python\ndef div(a, b):\n    return a / b if b else 0\nprint(div(1, 0))\n```";
    private static final String BAD = "Here you go:\n```python\ndef div(a, b):\n    return a / b\nprint(div(1, 0))\n```";
    private static final String ZERO_DIVISION = "Traceback (most recent call last):\n"
            + "  File \"/work/main.py\", line 3, in <module>\n    print(div(1, 0))\n"
            + "  File \"/work/main.py\", line 2, in div\n    return a / b\n"
            + "ZeroDivisionError: division by zero\n";

    private final InMemoryRunLog runLog = new InMemoryRunLog();
    private final List<GenerationRequest> requests = new CopyOnWriteArrayList<>();
    private final List<RunEvent> events = new CopyOnWriteArrayList<>();

    /** Fails any program containing "return a / b\n" the way Python does; runs the rest fine. */
    private final ScriptedSandbox python = new ScriptedSandbox(r -> r.program().source().contains("return a / b\n")
            ? ScriptedSandbox.exited(1, "", ZERO_DIVISION) : ScriptedSandbox.exited(0, "0\n", ""));

    @Test
    void stopsAtFirstAcceptedAttempt() {
        Run run = solve(replies(GOOD, GOOD), python, Task.of("divide safely"));
        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(run.attempts()).hasSize(1);
        assertThat(requests).hasSize(1);
        assertThat(runLog.find(run.id()).orElseThrow().status()).isEqualTo(RunStatus.SOLVED);
    }

    /** Each attempt says where it was made: this machine and process, and the tier its program ran in. */
    @Test
    void eachAttemptRecordsWhereItWasMade() {
        Run run = solve(replies("no code here", GOOD), python, Task.of("divide safely"));
        assertThat(run.attempts()).hasSize(2);
        for (var a : runLog.find(run.id()).orElseThrow().attempts()) {
            assertThat(a.placement()).as("attempt " + a.number())
                    .isEqualTo(new dev.codeagent.domain.solving.Placement(dev.codeagent.application.placement.Placements.host(),
                            ProcessHandle.current().pid(), python.tier()));
        }
    }

    @Test
    void feedsTheErrorWithItsLineBackAndTheNextAttemptFixesIt() {
        Run run = solve(replies(BAD, GOOD), python, Task.of("divide safely"));
        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(run.attempts()).hasSize(2);
        assertThat(run.attempts().get(0).verdict().kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
        assertThat(run.attempts().get(0).verdict().error().line()).isEqualTo(2);
        GenerationRequest second = requests.get(1);
        assertThat(second.history()).hasSize(1);
        assertThat(second.history().get(0).reply()).isEqualTo(BAD);
        assertThat(second.history().get(0).feedback())
                .contains("ZeroDivisionError").contains("division by zero").contains("line 2").contains("return a / b");
        assertThat(events).extracting(RunEvent::name).containsSubsequence(
                "run-started", "attempt-started", "code-generated", "executed", "verdict",
                "attempt-started", "code-generated", "executed", "verdict", "run-finished");
    }

    @Test
    void logsEachAttemptBeforeTheNextBegins() {
        List<Integer> loggedAtGeneration = new ArrayList<>();
        CodeGenerator generator = request -> {
            String id = runLog.recent(1, null).get(0).id();
            loggedAtGeneration.add(runLog.find(id).orElseThrow().attempts().size());
            return BAD;
        };
        Run run = new SolveTask(generator, execute(python), runLog, config(), Clock.systemUTC())
                .solve(Task.of("divide").withMaxAttempts(3), events::add);
        assertThat(run.status()).isEqualTo(RunStatus.FAILED);
        assertThat(run.reason()).contains("3 attempts");
        assertThat(loggedAtGeneration).containsExactly(0, 1, 2);
        assertThat(runLog.find(run.id()).orElseThrow().attempts()).hasSize(3);
    }

    @Test
    void aReplyWithoutCodeCostsAnAttemptAndSaysSo() {
        Run run = solve(replies("I'm sorry, I cannot help with that.", GOOD), python, Task.of("divide"));
        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(run.attempts().get(0).code()).isEmpty();
        assertThat(run.attempts().get(0).execution()).isNull();
        assertThat(run.attempts().get(0).verdict().message()).contains("no code");
        assertThat(requests.get(1).history().get(0).feedback()).isNotBlank();
        assertThat(python.requests()).hasSize(1);
    }

    @Test
    void retriesTransientGeneratorFailuresHonouringRetryAfter() {
        AtomicInteger calls = new AtomicInteger();
        CodeGenerator flaky = request -> {
            if (calls.incrementAndGet() < 3) {
                throw new GeneratorException(GeneratorException.Kind.TRANSIENT, "HTTP 429", Duration.ofMillis(30), null);
            }
            return GOOD;
        };
        long t0 = System.nanoTime();
        Run run = new SolveTask(flaky, execute(python), runLog, config(), Clock.systemUTC()).solve(Task.of("x"), events::add);
        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(calls).hasValue(3);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThanOrEqualTo(Duration.ofMillis(60));
    }

    @Test
    void aRejectedApiKeyStopsTheRunAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        CodeGenerator refused = request -> {
            calls.incrementAndGet();
            throw new GeneratorException(GeneratorException.Kind.AUTHENTICATION,
                    "the endpoint refused the API key (HTTP 401): set CODEAGENT_LLM_API_KEY");
        };
        Run run = new SolveTask(refused, execute(python), runLog, config(), Clock.systemUTC()).solve(Task.of("x"), events::add);
        assertThat(run.status()).isEqualTo(RunStatus.ERROR);
        assertThat(run.reason()).contains("API key");
        assertThat(calls).hasValue(1);
        assertThat(python.requests()).isEmpty();
    }

    @Test
    void aPermanentGeneratorFailureEndsTheRunWithoutRetry() {
        AtomicInteger calls = new AtomicInteger();
        CodeGenerator broken = request -> {
            calls.incrementAndGet();
            throw new GeneratorException(GeneratorException.Kind.PERMANENT, "malformed JSON in the reply");
        };
        Run run = new SolveTask(broken, execute(python), runLog, config(), Clock.systemUTC()).solve(Task.of("x"), events::add);
        assertThat(run.status()).isEqualTo(RunStatus.ERROR);
        assertThat(run.reason()).isEqualTo("the generator failed: malformed JSON in the reply");
        assertThat(calls).hasValue(1);
    }

    @Test
    void aCancelledExecutionCancelsTheRun() {
        ScriptedSandbox cancelled = new ScriptedSandbox(r -> {
            throw new ExecutionCancelledException("interrupted");
        });
        Run run = solve(replies(GOOD), cancelled, Task.of("x"));
        assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(runLog.find(run.id()).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
    }

    /** Ctrl-C mid-attempt: the attempt in flight is in the run log as CANCELLED with its code, not lost. */
    @Test
    void theAttemptInFlightIsRecordedAsCancelled() {
        ScriptedSandbox cancelled = new ScriptedSandbox(r -> {
            throw new ExecutionCancelledException("interrupted");
        });
        Run run = solve(replies(GOOD), cancelled, Task.of("x"));
        Run logged = runLog.find(run.id()).orElseThrow();
        assertThat(logged.attempts()).hasSize(1);
        assertThat(logged.attempts().get(0).verdict().kind()).isEqualTo(dev.codeagent.domain.solving.Verdict.Kind.CANCELLED);
        assertThat(logged.attempts().get(0).verdict().message()).isEqualTo("stopped while the code was running");
        assertThat(logged.attempts().get(0).code()).isNotEmpty();
        assertThat(run.attempts()).hasSize(1);
    }

    @Test
    void anInterruptThatSurfacesWrappedOrElsewhereStillCancelsTheRunAndRecordsIt() {
        // as a bulkhead waiting for an execution place reports an interrupt: its own exception, the flag set
        ScriptedSandbox wrapped = new ScriptedSandbox(r -> {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("acquiring a permission was cancelled");
        });
        try {
            Run run = solve(replies(GOOD), wrapped, Task.of("x"));
            assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(runLog.find(run.id()).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED);
        } finally {
            Thread.interrupted();
        }
        ScriptedSandbox cause = new ScriptedSandbox(r -> {
            throw new IllegalStateException("wrapped", new InterruptedException("sleep interrupted"));
        });
        Run run = solve(replies(GOOD), cause, Task.of("x"));
        assertThat(run.status()).isEqualTo(RunStatus.CANCELLED);
        // anything else is no cancel: it goes up as it did
        ScriptedSandbox broken = new ScriptedSandbox(r -> {
            throw new IllegalStateException("a bug");
        });
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> solve(replies(GOOD), broken, Task.of("x")))
                .hasMessage("a bug");
    }

    @Test
    void aSandboxFailureEndsTheRunAsAnError() {
        ScriptedSandbox down = new ScriptedSandbox(r -> ScriptedSandbox.ended(Outcome.SANDBOX_ERROR, "engine gone"));
        Run run = solve(replies(GOOD, GOOD), down, Task.of("x"));
        assertThat(run.status()).isEqualTo(RunStatus.ERROR);
        assertThat(run.reason()).contains("engine gone");
        assertThat(run.attempts()).hasSize(1);
    }

    @Test
    void noExecutionOutlivesTheRunDeadline() {
        SolveConfig tight = new SolveConfig(3, Duration.ofMillis(800), 1, Duration.ofMillis(1));
        List<ExecutionRequest> seen = python.requests();
        CodeGenerator slow = request -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return BAD;
        };
        Run run = new SolveTask(slow, execute(python), runLog, tight, Clock.systemUTC())
                .solve(Task.of("x").withMaxAttempts(5), events::add);
        assertThat(run.status()).isEqualTo(RunStatus.ERROR);
        assertThat(run.reason()).contains("longer than its limit");
        assertThat(seen).isNotEmpty().allSatisfy(r -> assertThat(r.limits().wallTime()).isLessThan(Duration.ofMillis(800)));
    }

    @Test
    void runsWithTestsGiveTheTestsToTheJudgeNotToTheProgram() {
        Task task = new Task("write inc", dev.codeagent.domain.execution.Language.PYTHON, "assert inc(1) == 2", null, "",
                dev.codeagent.domain.execution.ResourceLimits.defaults(), 2);
        solve(replies("```python\ndef inc(x):\n    return x + 1\n```"), python, task);
        assertThat(python.requests().get(0).program().source()).startsWith("def inc(x):\n    return x + 1").doesNotContain("assert");
        assertThat(python.requests().get(0).judging().tests()).isEqualTo("assert inc(1) == 2");
    }

    @Test
    void inASessionEachAttemptRunsAsACellTheModelHearsWhatItHoldsAndTheJudgeRebuildsIt() {
        dev.codeagent.domain.session.Session session = org.mockito.Mockito.mock(dev.codeagent.domain.session.Session.class);
        List<String> cells = new CopyOnWriteArrayList<>();
        org.mockito.Mockito.when(session.execute(org.mockito.ArgumentMatchers.any())).thenAnswer(inv -> {
            String source = ((dev.codeagent.domain.session.Cell) inv.getArgument(0)).source();
            cells.add(source);
            List<dev.codeagent.domain.session.CellOutput> out = source.contains("globals()")
                    ? List.of(new dev.codeagent.domain.session.CellOutput.Stream("stdout", "div: function\n"))
                    : List.of(new dev.codeagent.domain.session.CellOutput.Stream("stdout", "shown in the session\n"));
            return new dev.codeagent.domain.session.CellResult(dev.codeagent.domain.session.CellStatus.OK, cells.size(),
                    Duration.ofMillis(5), false, out, "");
        });
        CodeGenerator generator = request -> {
            requests.add(request);
            return replies(BAD, GOOD).apply(request);
        };
        Run run = new SolveTask(generator, execute(python), runLog, config(), Clock.systemUTC())
                .solveInSession("r1", Task.of("divide safely"), events::add, () -> StopReason.CANCELLED, session);

        assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(cells).hasSize(4);
        assertThat(cells.get(0)).contains("return a / b\n");
        assertThat(requests.get(1).history().get(0).feedback()).contains("ZeroDivisionError")
                .contains("live Python session").contains("shown in the session").contains("The session holds: div: function.");
        String judged = python.requests().get(1).program().source();
        assertThat(judged).as("attempt 2 is judged after attempt 1's cell, rebuilt from its code")
                .contains("exec(compile(\"def div(a, b):\\n    return a / b\\nprint(div(1, 0))\", '<session>', 'exec'), globals())")
                .endsWith(run.attempts().get(1).code());
        org.mockito.Mockito.verify(session, org.mockito.Mockito.never()).close();
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> new SolveTask(generator,
                execute(python), runLog, config(), Clock.systemUTC()).solveInSession("r2",
                new Task("x", dev.codeagent.domain.execution.Language.BASH, null, null, "", dev.codeagent.domain.execution.ResourceLimits.defaults(), 3), events::add, () -> StopReason.CANCELLED, session));
    }

    private Run solve(Function<GenerationRequest, String> replies, ScriptedSandbox sandbox, Task task) {
        CodeGenerator generator = request -> {
            requests.add(request);
            return replies.apply(request);
        };
        return new SolveTask(generator, execute(sandbox), runLog, config(), Clock.systemUTC()).solve(task, events::add);
    }

    private static Function<GenerationRequest, String> replies(String... replies) {
        return request -> replies[Math.min(request.attemptNumber(), replies.length) - 1];
    }

    private static ExecuteCode execute(ScriptedSandbox sandbox) {
        return new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 4, Duration.ofSeconds(1));
    }

    private static SolveConfig config() {
        return new SolveConfig(3, Duration.ofMinutes(1), 4, Duration.ofMillis(1));
    }
}
