package dev.codeagent.application.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.spy;

import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The scheduler over the real agent loop and an in-memory run log; the sandbox is scripted to block until interrupted. */
class RunSchedulerTest {

    private static final String CODE = "```python\nprint(1)\n```";

    private final InMemoryRunLog store = new InMemoryRunLog();
    private final CountDownLatch executing = new CountDownLatch(1);
    private final List<RunEvent> events = new CopyOnWriteArrayList<>();
    private volatile boolean block;
    private final ScriptedSandbox sandbox = new ScriptedSandbox(r -> {
        if (block) {
            executing.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // as the real sandboxes do: the program is killed and the caller told so
                throw new ExecutionCancelledException("cancelled");
            }
        }
        return ScriptedSandbox.exited(0, "1\n", "");
    });
    private RunScheduler scheduler;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (scheduler != null) {
            scheduler.stopAll(Duration.ofSeconds(5));
        }
    }

    @Test
    void runsATaskInTheBackgroundAndTheListenerHearsItsEndOnce() throws Exception {
        scheduler = scheduler(store, 2);
        Run accepted = scheduler.start("run-1", Task.of("print one"), events::add);
        assertThat(accepted.status()).isEqualTo(RunStatus.RUNNING);
        Run done = awaitEnd("run-1");
        assertThat(done.status()).isEqualTo(RunStatus.SOLVED);
        assertThat(events).filteredOn(e -> e instanceof RunEvent.RunFinished).hasSize(1);
        assertThat(events.get(events.size() - 1)).isInstanceOf(RunEvent.RunFinished.class);
        assertThat(scheduler.active()).isZero();
    }

    @Test
    void aCancelledRunEndsCancelledWithTheCallersReason() throws Exception {
        block = true;
        scheduler = scheduler(store, 2);
        scheduler.start("run-1", Task.of("print one"), events::add);
        assertThat(executing.await(10, TimeUnit.SECONDS)).isTrue();

        RunScheduler.Cancellation c = scheduler.cancel("run-1", "the user changed their mind", Duration.ofSeconds(10)).orElseThrow();

        assertThat(c.ended()).isTrue();
        assertThat(c.run().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(c.run().reason()).isEqualTo("the user changed their mind");
        RunEvent.RunFinished last = (RunEvent.RunFinished) events.get(events.size() - 1);
        assertThat(last.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(last.reason()).isEqualTo("the user changed their mind");
        assertThat(scheduler.cancel("run-1", "again", Duration.ofSeconds(1))).as("no longer worked on").isEmpty();
        assertThat(scheduler.cancel("never-started", "x", Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    void aGracefulStopEndsRunsAsInterruptedNotCancelledAndRefusesNewOnes() throws Exception {
        block = true;
        scheduler = scheduler(store, 2);
        scheduler.start("run-1", Task.of("print one"), events::add);
        assertThat(executing.await(10, TimeUnit.SECONDS)).isTrue();

        scheduler.stopAll(Duration.ofSeconds(10));

        Run run = store.find("run-1").orElseThrow();
        assertThat(run.status()).isEqualTo(RunStatus.ERROR);
        assertThat(run.reason()).isEqualTo(RecoverInterruptedRuns.REASON);
        RunEvent.RunFinished last = (RunEvent.RunFinished) events.get(events.size() - 1);
        assertThat(last.status()).isEqualTo(RunStatus.ERROR);
        assertThat(last.reason()).isEqualTo(RecoverInterruptedRuns.REASON);
        assertThatThrownBy(() -> scheduler.start("run-2", Task.of("x"), events::add))
                .isInstanceOfSatisfying(RunRefusedException.class, e -> assertThat(e.why()).isEqualTo(RunRefusedException.Why.STOPPING));
        assertThat(store.find("run-2")).isEmpty();
    }

    @Test
    void refusesARunAtOnceWhenEveryPlaceIsTaken() throws Exception {
        block = true;
        scheduler = scheduler(store, 1);
        scheduler.start("run-1", Task.of("print one"), events::add);
        assertThat(executing.await(10, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> scheduler.start("run-2", Task.of("x"), e -> { }))
                .isInstanceOfSatisfying(RunRefusedException.class, e -> assertThat(e.why()).isEqualTo(RunRefusedException.Why.BUSY));
        assertThat(scheduler.find("run-2")).isEmpty();
        assertThat(scheduler.find("run-1")).map(Run::status).contains(RunStatus.RUNNING);
        assertThat(scheduler.active()).isEqualTo(1);
    }

    @Test
    void aRunWhoseLoopFailsStillEndsInTheStoreAndForTheListener() throws Exception {
        RunLog failing = spy(new InMemoryRunLog());
        doThrow(new IllegalStateException("disk full")).when(failing).attemptFinished(any(String.class), any(Attempt.class));
        scheduler = scheduler(failing, 2);
        scheduler.start("run-1", Task.of("print one"), events::add);

        Run run = awaitEnd(failing, "run-1");

        assertThat(run.status()).isEqualTo(RunStatus.ERROR);
        assertThat(run.reason()).isEqualTo("internal error: IllegalStateException");
        assertThat(events).filteredOn(e -> e instanceof RunEvent.RunFinished).singleElement()
                .satisfies(e -> assertThat(((RunEvent.RunFinished) e).status()).isEqualTo(RunStatus.ERROR));
    }

    private RunScheduler scheduler(RunLog runLog, int maxRuns) {
        ExecuteCode executeCode = new ExecuteCode(sandbox, CodePolicy.permissive(), 1 << 20, 4, Duration.ofSeconds(1));
        SolveTask loop = new SolveTask(request -> CODE, executeCode, runLog,
                new SolveConfig(1, Duration.ofMinutes(1), 1, Duration.ofMillis(1)), Clock.systemUTC());
        return new RunScheduler(loop, runLog, maxRuns, Clock.systemUTC());
    }

    private Run awaitEnd(String id) throws InterruptedException {
        return awaitEnd(store, id);
    }

    private Run awaitEnd(RunLog runLog, String id) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Run r = runLog.find(id).orElse(null);
            if (r != null && r.status().isFinal() && scheduler.active() == 0) {
                return r;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("run " + id + " did not end in 10s");
    }
}
