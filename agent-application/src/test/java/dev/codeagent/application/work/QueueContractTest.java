package dev.codeagent.application.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What every {@link WorkQueue} and {@link ExecutionQueue} promises, whatever keeps them: runs a store's test (extend
 * this, say how a process joins the shared queues and how it stops beating) against the in-memory queues and
 * against PostgreSQL, so the two cannot drift apart. What a store does beyond the ports (ridden-out restarts, its
 * SQL) is tested beside the store.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class QueueContractTest {

    protected static final Instant T0 = Instant.parse("2025-03-04T05:06:07.123456789Z");

    /** One process's view of the shared queues and run log. */
    public record Participant(RunLog log, WorkQueue runs, ExecutionQueue executions, AutoCloseable resources) {
    }

    /** A new process joining the queues of this test (the first call of a test makes them, empty). */
    protected abstract Participant join() throws Exception;

    /** The process stops beating its heartbeat without a word (hung, cut off), as if killed. */
    protected abstract void stopBeating(Participant p) throws Exception;

    /** How long after it stopped beating a process's claims are lost. */
    protected abstract Duration lease();

    private final List<Participant> joined = new ArrayList<>();

    private Participant process() throws Exception {
        Participant p = join();
        joined.add(p);
        return p;
    }

    @AfterEach
    void leave() throws Exception {
        for (Participant p : joined) {
            p.resources().close();
        }
    }

    static Attempt printed(int number, String stdout) {
        Execution e = new Execution(Outcome.OK, 0, null, new CapturedOutput(stdout, false), CapturedOutput.EMPTY,
                Duration.ofMillis(30), Duration.ofMillis(20), 9_000_000L, null, new Isolation("test", Set.of(), Set.of()));
        return new Attempt(number, "print(1)", "print(1)", e, Verdict.accepted(), "", Duration.ofMillis(7), Duration.ofMillis(31));
    }

    private static Execution printedBy(String stdout) {
        return printed(1, stdout).execution();
    }

    // ---- runs

    @Test
    void aQueuedRunIsRecordedAndHandedToOneClaimerOldestFirst() throws Exception {
        Participant front = process();
        Participant worker = process();
        front.runs().enqueue(Run.started("first", Task.of("x"), T0));
        front.runs().enqueue(Run.started("second", Task.of("y"), T0));

        assertThat(front.log().find("first").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        assertThat(front.runs().depth()).isEqualTo(2);
        WorkQueue.Claim claim = worker.runs().claim().orElseThrow();
        assertThat(claim.run().id()).isEqualTo("first");
        assertThat(claim.times()).isEqualTo(1);
        assertThat(worker.runs().claim()).map(c -> c.run().id()).contains("second");
        assertThat(front.runs().claim()).isEmpty();
        assertThat(front.runs().depth()).isZero();
    }

    @Test
    void concurrentClaimersNeverShareARun() throws Exception {
        Participant front = process();
        for (int i = 0; i < 40; i++) {
            front.runs().enqueue(Run.started("r" + i, Task.of("x"), T0));
        }
        List<Participant> workers = List.of(process(), process(), process());
        Set<String> taken = ConcurrentHashMap.newKeySet();
        List<String> twice = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(workers.size());
        try {
            List<Future<?>> loops = new ArrayList<>();
            for (Participant w : workers) {
                loops.add(pool.submit(() -> {
                    for (var c = w.runs().claim(); c.isPresent(); c = w.runs().claim()) {
                        if (!taken.add(c.get().run().id())) {
                            synchronized (twice) {
                                twice.add(c.get().run().id());
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : loops) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(twice).isEmpty();
        assertThat(taken).hasSize(40);
    }

    @Test
    void cancelEndsAWaitingRunAtOnceAndTellsTheHolderOfAClaimedOne() throws Exception {
        Participant front = process();
        Participant worker = process();
        front.runs().enqueue(Run.started("waiting", Task.of("x"), T0));
        assertThat(front.runs().cancel("waiting", "changed my mind")).isTrue();
        Run w = front.log().find("waiting").orElseThrow();
        assertThat(w.status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(w.reason()).isEqualTo("changed my mind");
        assertThat(worker.runs().claim()).isEmpty();
        assertThat(front.runs().cancel("waiting", "again")).isFalse();

        BlockingQueue<String> told = new LinkedBlockingQueue<>();
        try (AutoCloseable watch = worker.runs().onCancel((id, why) -> told.add(id + ": " + why))) {
            Thread.sleep(200);
            front.runs().enqueue(Run.started("busy", Task.of("y"), T0));
            assertThat(worker.runs().claim()).map(c -> c.run().id()).contains("busy");
            assertThat(front.runs().cancel("busy", "stop it")).isTrue();
            assertThat(told.poll(5, TimeUnit.SECONDS)).isEqualTo("busy: stop it");
        }
        assertThat(front.runs().cancel("nope", "x")).isFalse();
    }

    @Test
    void aFinishedRunIsNoLongerWaitingNorClaimed() throws Exception {
        Participant front = process();
        Participant worker = process();
        front.runs().enqueue(Run.started("r", Task.of("x"), T0));
        worker.runs().claim().orElseThrow();
        worker.log().ended("r", RunStatus.SOLVED, T0.plusSeconds(1), null);
        worker.runs().finished("r");

        assertThat(front.runs().cancel("r", "too late")).isFalse();
        assertThat(front.log().find("r").orElseThrow().status()).isEqualTo(RunStatus.SOLVED);
        assertThat(process().runs().claim()).isEmpty();
    }

    @Test
    void aFollowerWakesWhenTheRunChangesInAnotherProcess() throws Exception {
        Participant front = process();
        Participant worker = process();
        front.runs().enqueue(Run.started("r", Task.of("x"), T0));
        try (WorkQueue.Follower follower = front.runs().follow("r")) {
            assertThat(follower.await(Duration.ofMillis(200))).isFalse();
            worker.runs().claim().orElseThrow();
            worker.log().attemptFinished("r", printed(1, "1\n"));
            assertThat(follower.await(Duration.ofSeconds(5))).isTrue();
            assertThat(follower.await(Duration.ofMillis(200))).as("each change is awaited once").isFalse();
        }
    }

    @Test
    void anIdleWorkerWakesWhenWorkIsQueued() throws Exception {
        Participant front = process();
        Participant worker = process();
        assertThat(worker.runs().awaitWork(Duration.ofMillis(200))).isFalse();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> woke = pool.submit(() -> worker.runs().awaitWork(Duration.ofSeconds(20)));
            Thread.sleep(200);
            front.runs().enqueue(Run.started("new", Task.of("x"), T0));
            assertThat(woke.get(5, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Stores keep the takeover as their default; one configured to end such runs says so in its own tests. */
    @Test
    void aRunWhoseHolderStoppedBeatingIsTakenOverFromItsLastAttemptAndTheOldHolderFenced() throws Exception {
        Participant front = process();
        Participant next = process();
        Participant stalled = process();
        front.runs().enqueue(Run.started("r", Task.of("x"), T0));
        assertThat(stalled.runs().claim()).isPresent();
        stalled.log().attemptFinished("r", printed(1, "a\n"));
        stopBeating(stalled);
        assertThat(next.runs().claim()).as("its lease still holds").isEmpty();
        Thread.sleep(lease().toMillis() + 500);

        WorkQueue.Claim taken = next.runs().claim().orElseThrow();
        assertThat(taken.times()).isEqualTo(2);
        assertThat(taken.run().attempts()).hasSize(1);
        assertThatThrownBy(() -> stalled.log().attemptFinished("r", printed(2, "late\n")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("held by another worker");
        next.log().attemptFinished("r", printed(2, "b\n"));
        assertThat(front.log().find("r").orElseThrow().attempts()).hasSize(2);
    }

    // ---- executions

    @Test
    void anExecutionRunsOnceAndItsResultReachesOnlyItsSubmitterOnce() throws Exception {
        Participant submitter = process();
        Participant other = process();
        Participant worker = process();
        ExecutionRequest request = ExecutionRequest.of(Language.PYTHON, "print(1)");
        submitter.executions().submit("e1", request);
        submitter.executions().submit("e1", request);
        assertThat(submitter.executions().executionsWaiting()).as("the same id queues once").isEqualTo(1);

        ExecutionQueue.Claimed claimed = worker.executions().claimExecution().orElseThrow();
        assertThat(claimed.id()).isEqualTo("e1");
        assertThat(claimed.request().program().source()).isEqualTo("print(1)");
        assertThat(claimed.times()).isEqualTo(1);
        assertThat(worker.executions().claimExecution()).isEmpty();
        assertThat(worker.executions().complete("e1", printedBy("1\n"))).isTrue();

        assertThat(submitter.executions().awaitResults(Duration.ofSeconds(5))).isTrue();
        assertThat(other.executions().takeResults()).isEmpty();
        Map<String, Execution> results = submitter.executions().takeResults();
        assertThat(results).containsOnlyKeys("e1");
        assertThat(results.get("e1").stdout().text()).isEqualTo("1\n");
        assertThat(submitter.executions().takeResults()).as("handed out once").isEmpty();
    }

    @Test
    void anIdThatIsNotOneIsRefusedNamingIt() throws Exception {
        Participant submitter = process();
        assertThatThrownBy(() -> submitter.executions().submit("no spaces", ExecutionRequest.of(Language.PYTHON, "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no spaces");
    }

    @Test
    void aWithdrawnExecutionNeverRunsAndARunningOneIsStoppedWithItsResultRefused() throws Exception {
        Participant submitter = process();
        Participant worker = process();
        BlockingQueue<String> stop = new LinkedBlockingQueue<>();
        try (AutoCloseable watch = worker.executions().onWithdrawn(stop::add)) {
            Thread.sleep(200);
            submitter.executions().submit("waiting", ExecutionRequest.of(Language.PYTHON, "print(1)"));
            submitter.executions().withdraw(List.of("waiting"));
            assertThat(worker.executions().claimExecution()).isEmpty();

            submitter.executions().submit("running", ExecutionRequest.of(Language.PYTHON, "print(2)"));
            assertThat(worker.executions().claimExecution()).map(ExecutionQueue.Claimed::id).contains("running");
            submitter.executions().withdraw(List.of("running", "never-queued"));
            assertThat(stop.poll(5, TimeUnit.SECONDS)).isEqualTo("running");
            assertThat(worker.executions().complete("running", printedBy("2\n"))).isFalse();
            assertThat(submitter.executions().takeResults()).isEmpty();
        }
    }

    @Test
    void aReleasedExecutionIsClaimableAgainAtOnce() throws Exception {
        Participant submitter = process();
        Participant stopping = process();
        Participant next = process();
        submitter.executions().submit("e", ExecutionRequest.of(Language.PYTHON, "print(1)"));
        assertThat(stopping.executions().claimExecution()).isPresent();
        stopping.executions().release("e");
        assertThat(next.executions().claimExecution()).map(ExecutionQueue.Claimed::id).contains("e");
        assertThat(stopping.executions().complete("e", printedBy("1\n"))).isFalse();
    }

    @Test
    void anExecutionWhoseWorkerStoppedBeatingRunsAgainElsewhereAndTheOldResultIsRefused() throws Exception {
        Participant submitter = process();
        Participant next = process();
        Participant stalled = process();
        submitter.executions().submit("e", ExecutionRequest.of(Language.PYTHON, "print(1)"));
        assertThat(stalled.executions().claimExecution()).isPresent();
        stopBeating(stalled);
        assertThat(next.executions().claimExecution()).as("its lease still holds").isEmpty();
        Thread.sleep(lease().toMillis() + 500);

        ExecutionQueue.Claimed again = next.executions().claimExecution().orElseThrow();
        assertThat(again.times()).isEqualTo(2);
        assertThat(stalled.executions().complete("e", printedBy("old\n"))).isFalse();
        assertThat(next.executions().complete("e", printedBy("new\n"))).isTrue();
        assertThat(submitter.executions().takeResults().get("e").stdout().text()).isEqualTo("new\n");
    }

    @Test
    void workOfASubmitterThatStoppedBeatingIsNeverStarted() throws Exception {
        Participant gone = process();
        Participant worker = process();
        gone.executions().submit("orphan", ExecutionRequest.of(Language.PYTHON, "print(1)"));
        stopBeating(gone);
        Thread.sleep(lease().toMillis() + 500);
        assertThat(worker.executions().claimExecution()).isEmpty();
    }
}
