package dev.codeagent.application.submit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.application.view.EvaluationReportView;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.domain.solving.Verdict;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Orchestration only: the sandbox is scripted; real programs are judged in adapter-http's EvaluationsIT. */
class SubmitEvaluationsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Caller ANN = Caller.apiKey("ann", false);
    private static final Caller BOB = Caller.apiKey("bob", false);

    private SubmitEvaluations submit;

    @AfterEach
    void close() {
        if (submit != null) {
            submit.close();
        }
    }

    private static Execution python(ExecutionRequest r) {
        boolean right = r.program().source().contains("return x + 1");
        return right ? ScriptedSandbox.testsPassed(r, "") : ScriptedSandbox.exited(0, "", "").withJudgement(
                new JudgeReport(JudgeReport.Outcome.ASSERTION, "failed assertion: assert candidate(1) == 2", 2,
                        "    assert candidate(1) == 2", List.of("candidate(1) returned 1"), null));
    }

    private SubmitEvaluations service(Function<ExecutionRequest, Execution> sandbox) {
        ExecuteCode execute = new ExecuteCode(new ScriptedSandbox(sandbox), CodePolicy.permissive(), 1 << 20, 2,
                Duration.ofSeconds(5));
        submit = new SubmitEvaluations(execute, new InMemoryEvaluationLog(), ResourceLimits.defaults(), 2, Clock.systemUTC());
        return submit;
    }

    private static JsonNode problem(String id) {
        return JSON.createObjectNode().put("task_id", id).put("prompt", "def inc(x):\n").put("canonical_solution", "")
                .put("test", "def check(candidate):\n    assert candidate(1) == 2\n").put("entry_point", "inc");
    }

    private static JsonNode sample(String id, String completion) {
        return JSON.createObjectNode().put("task_id", id).put("completion", completion);
    }

    private static EvaluationRequest request(int problems, int samplesEach) {
        List<JsonNode> ps = new ArrayList<>();
        List<JsonNode> ss = new ArrayList<>();
        for (int p = 0; p < problems; p++) {
            ps.add(problem("T/" + p));
            for (int s = 0; s < samplesEach; s++) {
                ss.add(sample("T/" + p, s % 2 == 0 ? "    return x + 1\n" : "    return x\n"));
            }
        }
        return new EvaluationRequest("tiny", null, ps, ss);
    }

    private static Evaluation await(SubmitEvaluations s, Caller caller, String id) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < end) {
            Evaluation e = s.find(caller, id).orElseThrow();
            if (e.ended()) {
                return e;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("evaluation " + id + " did not end");
    }

    @Test
    void judgesInTheBackgroundAndKeepsTheReportForItsOwnerOnly() throws InterruptedException {
        SubmitEvaluations s = service(SubmitEvaluationsTest::python);
        Evaluation queued = s.submit(ANN, request(2, 2));
        assertThat(queued.status()).isEqualTo(Evaluation.Status.QUEUED);
        assertThat(queued.owner()).isEqualTo("key:ann");
        assertThat(queued.samples()).isEqualTo(4);

        Evaluation done = await(s, ANN, queued.id());
        assertThat(done.status()).isEqualTo(Evaluation.Status.DONE);
        assertThat(done.done()).isEqualTo(4);
        assertThat(done.passed()).isEqualTo(2);
        assertThat(done.passAt1()).hasValue(0.5);
        assertThat(done.report().verdicts()).containsEntry(Verdict.Kind.WRONG_ANSWER.name(), 2);
        assertThat(done.report().problems()).extracting(EvaluationReportView.ProblemView::id).containsExactly("T/0", "T/1");
        assertThat(done.report().problems().get(0).samples().get(1).code()).isEqualTo("    return x\n");
        assertThat(done.report().subject()).isEqualTo("tiny");

        assertThat(s.find(BOB, queued.id())).isEmpty();
        assertThat(s.list(BOB)).isEmpty();
        assertThat(s.list(ANN)).extracting(Evaluation::id).containsExactly(queued.id());
        assertThat(s.list(Caller.apiKey("ops", true))).hasSize(1);
        assertThat(s.forget(BOB, queued.id())).isFalse();
        assertThat(s.forget(ANN, queued.id())).isTrue();
        assertThat(s.find(ANN, queued.id())).isEmpty();
    }

    @Test
    void refusesOverTheCapsAndUnusableInputNamingTheField() {
        SubmitEvaluations s = service(SubmitEvaluationsTest::python);
        assertThatThrownBy(() -> s.submit(ANN, request(SubmitEvaluations.MAX_PROBLEMS + 1, 1)))
                .isInstanceOf(EvaluationRefusedException.class).hasMessageContaining("at most " + SubmitEvaluations.MAX_PROBLEMS)
                .extracting(e -> ((EvaluationRefusedException) e).field()).isEqualTo("problems");
        assertThatThrownBy(() -> s.submit(ANN, request(1, SubmitEvaluations.MAX_SAMPLES_PER_PROBLEM + 1)))
                .hasMessageContaining("samples per problem").extracting(e -> ((EvaluationRefusedException) e).field())
                .isEqualTo("samples");
        EvaluationRequest unknownTask = new EvaluationRequest(null, null, List.of(problem("T/0")),
                List.of(sample("T/0", "x"), sample("T/9", "y")));
        assertThatThrownBy(() -> s.submit(ANN, unknownTask)).hasMessageContaining("unknown task_id 'T/9'")
                .extracting(e -> ((EvaluationRefusedException) e).field()).isEqualTo("samples[1]");
        EvaluationRequest noFormat = new EvaluationRequest(null, null, List.of(JSON.createObjectNode().put("task_id", "a")),
                List.of(sample("a", "x")));
        assertThatThrownBy(() -> s.submit(ANN, noFormat)).hasMessageContaining("cannot tell the problem format")
                .hasMessageContaining("\"format\"");
        assertThat(s.list(ANN)).isEmpty();
    }

    @Test
    void forgettingARunningEvaluationStopsItAndItStaysForgotten() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        SubmitEvaluations s = service(r -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return python(r);
        });
        Evaluation e = s.submit(ANN, request(1, 2));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(s.find(ANN, e.id()).orElseThrow().status()).isEqualTo(Evaluation.Status.RUNNING);
        assertThat(s.forget(ANN, e.id())).isTrue();
        // an update from its stopped worker must not bring it back
        Thread.sleep(200);
        assertThat(s.find(ANN, e.id())).isEmpty();
    }

    @Test
    void closingRecordsWhatItHadNotFinishedAsFailedSoNoneLooksAsIfItStillRan() throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        InMemoryEvaluationLog log = new InMemoryEvaluationLog();
        ExecuteCode execute = new ExecuteCode(new ScriptedSandbox(r -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return python(r);
        }), CodePolicy.permissive(), 1 << 20, 2, Duration.ofSeconds(5));
        SubmitEvaluations s = new SubmitEvaluations(execute, log, ResourceLimits.defaults(), 2, Clock.systemUTC());
        Evaluation running = s.submit(ANN, request(1, 1));
        Evaluation waiting = s.submit(ANN, request(1, 1));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        s.close();
        // the stopped worker's sample still ends (this sandbox answers when interrupted): its progress, written after
        // close, once put RUNNING back over FAILED
        Thread.sleep(300);
        for (Evaluation e : List.of(running, waiting)) {
            Evaluation after = log.find(e.id()).orElseThrow();
            assertThat(after.status()).as(e.id()).isEqualTo(Evaluation.Status.FAILED);
            assertThat(after.error()).contains("server stopped");
        }
        assertThatThrownBy(() -> s.submit(ANN, request(1, 1))).isInstanceOf(EvaluationRefusedException.class)
                .hasMessageContaining("stopping");
    }

    /** A service whose every program waits for the latch: what it takes stays waiting or running until then. */
    private SubmitEvaluations held(CountDownLatch release) {
        return service(r -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return python(r);
        });
    }

    @Test
    void tooManyWaitingIsABusyRefusal() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        SubmitEvaluations s = held(release);
        // several keys, each within its own cap, fill the queue together
        for (int i = 0; i < SubmitEvaluations.RUNNING_AT_ONCE + SubmitEvaluations.MAX_WAITING; i++) {
            s.submit(Caller.apiKey("k" + i / SubmitEvaluations.MAX_PENDING_PER_OWNER, false), request(1, 1));
        }
        assertThatThrownBy(() -> s.submit(BOB, request(1, 1))).isInstanceOf(EvaluationRefusedException.class)
                .hasMessageContaining("waiting").matches(e -> ((EvaluationRefusedException) e).busy());
        release.countDown();
        assertThat(s.list(BOB)).isEmpty();
    }

    @Test
    void oneKeyGetsOnlyItsShareOfTheQueueAndForgettingOneGivesItBack() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        SubmitEvaluations s = held(release);
        List<Evaluation> anns = new ArrayList<>();
        for (int i = 0; i < SubmitEvaluations.MAX_PENDING_PER_OWNER; i++) {
            anns.add(s.submit(ANN, request(1, 1)));
        }
        assertThatThrownBy(() -> s.submit(ANN, request(1, 1))).isInstanceOf(EvaluationRefusedException.class)
                .hasMessageContaining("your key has " + SubmitEvaluations.MAX_PENDING_PER_OWNER)
                .matches(e -> ((EvaluationRefusedException) e).busy());
        assertThat(s.submit(BOB, request(1, 1)).status()).isEqualTo(Evaluation.Status.QUEUED);
        assertThat(s.forget(ANN, anns.get(anns.size() - 1).id())).isTrue();
        assertThat(s.submit(ANN, request(1, 1)).owner()).isEqualTo("key:ann");
        release.countDown();
    }

    /**
     * The queue was first come, first served: a key's three slow evaluations, sent first, all ran before another key's
     * one. The next to start is the waiting one whose key started one longest ago.
     */
    @Test
    void theNextEvaluationToRunIsOfTheKeyThatWaitedLongestNotTheFirstSent() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
        SubmitEvaluations s = service(r -> {
            String src = r.program().source();
            order.add(src.substring(src.indexOf("#who:") + 5, src.indexOf(":who")));
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return python(r);
        });
        List<Evaluation> all = new ArrayList<>();
        all.add(s.submit(ANN, marked("ann1")));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (order.isEmpty() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        all.add(s.submit(ANN, marked("ann2")));
        all.add(s.submit(ANN, marked("ann3")));
        all.add(s.submit(BOB, marked("bob1")));
        release.countDown();
        for (Evaluation e : all) {
            await(s, e.owner().equals("key:ann") ? ANN : BOB, e.id());
        }
        assertThat(order).containsExactly("ann1", "bob1", "ann2", "ann3");
    }

    private static EvaluationRequest marked(String who) {
        return new EvaluationRequest(who, null, List.of(problem("T/0")),
                List.of(sample("T/0", "    return x + 1  #who:" + who + ":who\n")));
    }
}
