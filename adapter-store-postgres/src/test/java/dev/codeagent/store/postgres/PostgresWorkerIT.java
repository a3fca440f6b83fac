package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.testing.SandboxProviders;
import dev.codeagent.application.work.ProcessQueuedRuns;
import dev.codeagent.application.work.SubmitQueuedRun;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The worker use case over the real store: the model's replies carry no code, so each attempt is
 * judged without the sandbox (which must never be called here) and recorded; the run goes on through
 * the application's real solve loop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresWorkerIT {

    /** Present because the application composes a sandbox; a reply without code never reaches it. */
    private static class NeverCalledSandbox implements Sandbox {
        @Override
        public String tier() {
            return "none";
        }

        @Override
        public Set<Language> languages() {
            return Set.of(Language.PYTHON);
        }

        @Override
        public Isolation isolation() {
            return new Isolation("none", Set.of(), Set.of());
        }

        @Override
        public Execution execute(ExecutionRequest request) {
            throw new AssertionError("no code, no sandbox");
        }

        @Override
        public void close() {
        }
    }

    private static CodeAgent agent(PostgresStore log, CodeGenerator generator) {
        return CodeAgent.builder(new ConfigLoader().parse("sandbox: {kind: none}"))
                .provider(SandboxProviders.of("none", NeverCalledSandbox::new))
                .generator(generator).runLog(log.runLog()).build();
    }

    @Test
    void aWorkerGoesOnFromTheLastRecordedAttemptOfARunItTakesOver() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        List<Integer> historySeen = new CopyOnWriteArrayList<>();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore workerLog = PostgresStore.open(config);
             CodeAgent agent = agent(workerLog, request -> {
                 historySeen.add(request.history().size());
                 return "I cannot do that.";
             })) {
            PostgresStore dead = PostgresStore.open(config);
            front.workQueue().enqueue(Run.started("r", Task.of("x"), PostgresRunLogIT.T0));
            dead.workQueue().claim().orElseThrow();
            dead.runLog().attemptFinished("r", new Attempt(1, "first try", "", null,
                    dev.codeagent.domain.solving.Verdict.of(dev.codeagent.domain.solving.Verdict.Kind.INTERNAL_ERROR, "no code found in the reply"),
                    "No code found; reply with one fenced code block.", Duration.ofMillis(1), Duration.ZERO));
            PostgresRunLogIT.stopBeating(dead);
            Thread.sleep(config.leaseTimeout().toMillis() + 500);

            int worked = new ProcessQueuedRuns(workerLog.workQueue(), agent.solveTask(), Duration.ofMillis(100)).drain(RunListener.NONE);

            assertThat(worked).isEqualTo(1);
            assertThat(historySeen).containsExactly(1, 2); // attempts 2 and 3 knew of the ones before
            Run r = front.runLog().find("r").orElseThrow();
            assertThat(r.status()).isEqualTo(RunStatus.FAILED);
            assertThat(r.attempts()).extracting(Attempt::number).containsExactly(1, 2, 3);
            assertThat(r.attempts().get(0).reply()).isEqualTo("first try");
            assertThat(front.workQueue().depth()).isZero();
            dead.close();
        }
    }

    /**
     * A sandbox kills its program when the thread is interrupted and consumes the interrupt doing so (it throws
     * {@link dev.codeagent.domain.execution.ExecutionCancelledException}): a worker stopped while a program runs must
     * still stop, not take the next run.
     */
    @Test
    void aWorkerStoppedWhileItsProgramRunsStopsAndLeavesTheNextRunQueued() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        CountDownLatch running = new CountDownLatch(1);
        Sandbox swallowing = new NeverCalledSandbox() {
            @Override
            public Execution execute(ExecutionRequest request) {
                running.countDown();
                try {
                    Thread.sleep(30_000);
                } catch (InterruptedException e) {
                    throw new dev.codeagent.domain.execution.ExecutionCancelledException("killed: the caller was interrupted");
                }
                throw new AssertionError("not stopped");
            }
        };
        try (PostgresStore front = PostgresStore.open(config); PostgresStore workerLog = PostgresStore.open(config);
             CodeAgent agent = CodeAgent.builder(new ConfigLoader().parse("sandbox: {kind: none}"))
                     .provider(SandboxProviders.of("none", () -> swallowing))
                     .generator(request -> "```python\nprint(1)\n```").runLog(workerLog.runLog()).build()) {
            front.workQueue().enqueue(Run.started("first", Task.of("x"), PostgresRunLogIT.T0));
            front.workQueue().enqueue(Run.started("second", Task.of("y"), PostgresRunLogIT.T0));
            ProcessQueuedRuns worker = new ProcessQueuedRuns(workerLog.workQueue(), agent.solveTask(), Duration.ofMillis(100));
            int[] worked = new int[1];
            Thread t = new Thread(() -> worked[0] = worker.run(() -> false, RunListener.NONE));
            t.start();
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            t.interrupt(); // SIGTERM
            t.join(10_000);
            assertThat(t.isAlive()).as("the worker stopped").isFalse();
            assertThat(worked[0]).isEqualTo(1);
            Run first = front.runLog().find("first").orElseThrow();
            assertThat(first.status()).isEqualTo(RunStatus.ERROR);
            assertThat(first.reason()).contains("the worker stopped");
            assertThat(front.workQueue().depth()).as("the next run left for another worker").isEqualTo(1);
        }
    }

    @Test
    void aCancelFromAnotherProcessStopsTheRunInHandWithinASecond() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        CountDownLatch generating = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore workerLog = PostgresStore.open(config);
             CodeAgent agent = agent(workerLog, request -> {
                 generating.countDown();
                 try {
                     Thread.sleep(30_000); // a slow model call
                 } catch (InterruptedException e) {
                     Thread.currentThread().interrupt();
                     throw new dev.codeagent.domain.solving.GeneratorException(
                             dev.codeagent.domain.solving.GeneratorException.Kind.PERMANENT, "interrupted");
                 }
                 return "never";
             })) {
            front.workQueue().enqueue(Run.started("slow", Task.of("x"), PostgresRunLogIT.T0));
            Future<Integer> worker = pool.submit(() ->
                    new ProcessQueuedRuns(workerLog.workQueue(), agent.solveTask(), Duration.ofMillis(100)).drain(RunListener.NONE));
            assertThat(generating.await(10, TimeUnit.SECONDS)).isTrue();
            long t0 = System.nanoTime();
            assertThat(front.workQueue().cancel("slow", "the user gave up")).isTrue();
            while (front.runLog().find("slow").orElseThrow().status() == RunStatus.RUNNING) {
                Thread.sleep(10);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
            Run r = front.runLog().find("slow").orElseThrow();
            assertThat(r.status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(r.reason()).isEqualTo("the user gave up");
            assertThat(worker.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFrontDoorFollowsAQueuedRunToItsEndAsAWorkerRecordsIt() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore workerLog = PostgresStore.open(config);
             CodeAgent agent = agent(workerLog, request -> "I cannot do that.")) {
            SubmitQueuedRun submit = new SubmitQueuedRun(front.workQueue(), front.runLog(), java.time.Clock.systemUTC());
            Run queued = submit.submit(Task.of("x"));
            assertThat(front.workQueue().depth()).isEqualTo(1);
            Future<Integer> worker = pool.submit(() ->
                    new ProcessQueuedRuns(workerLog.workQueue(), agent.solveTask(), Duration.ofMillis(100)).drain(RunListener.NONE));
            List<Integer> heard = new CopyOnWriteArrayList<>();
            long t0 = System.nanoTime();
            Run done = submit.awaitEnd(queued.id(), r -> heard.add(r.attempts().size()));
            // woken by the store: far sooner than the 5 s a missed notification would cost
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(4));
            assertThat(done.status()).isEqualTo(RunStatus.FAILED);
            assertThat(done.attempts()).hasSize(3);
            assertThat(heard).startsWith(0).endsWith(3).isSorted();
            assertThat(worker.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
