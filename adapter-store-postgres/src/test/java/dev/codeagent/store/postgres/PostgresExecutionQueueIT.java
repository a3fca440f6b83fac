package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The execution queue against a real PostgreSQL: each test plays submitter and workers as separate store owners. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresExecutionQueueIT {

    static ExecutionRequest request(String source) {
        return ExecutionRequest.of(Language.PYTHON, source);
    }

    static Execution printed(String stdout) {
        return new Execution(Outcome.OK, 0, null, new CapturedOutput(stdout, false), CapturedOutput.EMPTY,
                Duration.ofMillis(30), Duration.ofMillis(20), 9_000_000L, null, new Isolation("test", Set.of(), Set.of()));
    }

    @Test
    void aWorkerRunsWhatASubmitterQueuedAndTheResultComesBackOnceWholeAndWoken() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore submitter = PostgresStore.open(config); PostgresStore worker = PostgresStore.open(config)) {
            // everything a request can carry survives the trip
            ExecutionRequest full = new ExecutionRequest(new Program(Language.PYTHON, "print(input())",
                    Map.of("data/a.txt", "x\ny"), "solution.py", Map.of("blob.bin", "AAEC")), "line\n", List.of("-v", "é"),
                    ResourceLimits.defaults().withWallTime(Duration.ofMillis(1500)),
                    new JudgeJob("assert f(1) == 1", "import math", List.of("f", "g"), "eval-7"),
                    ResourceLimits.compileDefaults());
            assertThat(worker.executionQueue().awaitExecutions(Duration.ofMillis(50))).isFalse();
            submitter.executionQueue().submit("one", full);
            assertThat(worker.executionQueue().awaitExecutions(Duration.ofSeconds(2))).as("woken by the queue's notice").isTrue();
            assertThat(worker.executionQueue().executionsWaiting()).isEqualTo(1);

            ExecutionQueue.Claimed claimed = worker.executionQueue().claimExecution().orElseThrow();
            assertThat(claimed.id()).isEqualTo("one");
            assertThat(claimed.request()).isEqualTo(full);
            assertThat(claimed.times()).isEqualTo(1);
            assertThat(worker.executionQueue().claimExecution()).as("handed out once").isEmpty();
            assertThat(submitter.executionQueue().takeResults()).isEmpty();

            Execution result = printed("line\n");
            assertThat(worker.executionQueue().complete("one", result)).isTrue();
            assertThat(submitter.executionQueue().awaitResults(Duration.ofSeconds(2))).as("woken by the result's notice").isTrue();
            assertThat(submitter.executionQueue().takeResults()).isEqualTo(Map.of("one", result));
            assertThat(submitter.executionQueue().takeResults()).as("taken once").isEmpty();
            assertThat(worker.executionQueue().complete("one", result)).as("a second result for it is refused").isFalse();
        }
    }

    @Test
    void anotherSubmittersResultsAreNotMine() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore a = PostgresStore.open(config); PostgresStore b = PostgresStore.open(config);
             PostgresStore worker = PostgresStore.open(config)) {
            a.executionQueue().submit("of-a", request("print('a')"));
            b.executionQueue().submit("of-b", request("print('b')"));
            for (int i = 0; i < 2; i++) {
                ExecutionQueue.Claimed c = worker.executionQueue().claimExecution().orElseThrow();
                worker.executionQueue().complete(c.id(), printed(c.id()));
            }
            assertThat(a.executionQueue().takeResults()).containsOnlyKeys("of-a");
            assertThat(b.executionQueue().takeResults()).containsOnlyKeys("of-b");
            // nor can one withdraw another's
            a.executionQueue().submit("a2", request("1"));
            b.executionQueue().withdraw(List.of("a2"));
            assertThat(worker.executionQueue().claimExecution()).map(ExecutionQueue.Claimed::id).contains("a2");
        }
    }

    @Test
    void anExecutionWhoseWorkerStoppedBeatingRunsAgainElsewhereAndTheStaleResultIsRefused() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore submitter = PostgresStore.open(config); PostgresStore next = PostgresStore.open(config)) {
            PostgresStore stalled = PostgresStore.open(config);
            submitter.executionQueue().submit("x", request("print(1)"));
            assertThat(stalled.executionQueue().claimExecution()).isPresent();
            PostgresRunLogIT.stopBeating(stalled);
            assertThat(next.executionQueue().claimExecution()).as("its lease still holds").isEmpty();
            Thread.sleep(config.leaseTimeout().toMillis() + 500);

            ExecutionQueue.Claimed again = next.executionQueue().claimExecution().orElseThrow();
            assertThat(again.id()).isEqualTo("x");
            assertThat(again.times()).isEqualTo(2);
            assertThat(stalled.executionQueue().complete("x", printed("stale\n"))).isFalse();
            assertThat(next.executionQueue().complete("x", printed("fresh\n"))).isTrue();
            assertThat(submitter.executionQueue().takeResults()).isEqualTo(Map.of("x", printed("fresh\n")));
            stalled.close();
        }
    }

    @Test
    void withdrawnWorkNeverStartsAndItsWorkerIsToldWithinASecond() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore submitter = PostgresStore.open(config); PostgresStore worker = PostgresStore.open(config)) {
            submitter.executionQueue().submit("waiting", request("print(1)"));
            submitter.executionQueue().submit("running", request("print(2)"));
            BlockingQueue<String> told = new LinkedBlockingQueue<>();
            try (AutoCloseable watch = worker.executionQueue().onWithdrawn(told::add)) {
                ExecutionQueue.Claimed c = worker.executionQueue().claimExecution().orElseThrow();
                assertThat(c.id()).isEqualTo("waiting");
                submitter.executionQueue().withdraw(List.of("running"));
                assertThat(worker.executionQueue().claimExecution()).as("withdrawn before it started").isEmpty();
                long t0 = System.nanoTime();
                submitter.executionQueue().withdraw(List.of("waiting"));
                assertThat(told.poll(1, TimeUnit.SECONDS)).isEqualTo("waiting");
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
                assertThat(worker.executionQueue().complete("waiting", printed("1\n"))).as("no result for withdrawn work").isFalse();
                assertThat(submitter.executionQueue().takeResults()).isEmpty();
                assertThat(told).as("only what this worker holds").isEmpty();
            }
        }
    }

    @Test
    void workHandedBackIsClaimedAgainAtOnce() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore submitter = PostgresStore.open(config); PostgresStore stopping = PostgresStore.open(config);
             PostgresStore next = PostgresStore.open(config)) {
            submitter.executionQueue().submit("x", request("print(1)"));
            assertThat(stopping.executionQueue().claimExecution()).isPresent();
            stopping.executionQueue().release("x");
            assertThat(next.executionQueue().claimExecution()).map(ExecutionQueue.Claimed::times).contains(2);
            assertThat(stopping.executionQueue().complete("x", printed("late"))).isFalse();
        }
    }

    @Test
    void workOfASubmitterThatIsGoneIsNeitherStartedNorKept() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore worker = PostgresStore.open(config)) {
            PostgresStore silent = PostgresStore.open(config);
            silent.executionQueue().submit("of-the-silent", request("print(1)"));
            PostgresRunLogIT.stopBeating(silent);
            Thread.sleep(config.leaseTimeout().toMillis() + 500);
            assertThat(worker.executionQueue().claimExecution()).as("nobody may be left to read its result").isEmpty();
            assertThat(worker.executionQueue().executionsWaiting()).as("but silence may be an outage: kept a while").isEqualTo(1);

            PostgresStore closed = PostgresStore.open(config);
            closed.executionQueue().submit("of-the-closed", request("print(2)"));
            closed.close();
            try (PostgresStore another = PostgresStore.open(config)) { // sweeps on its first idle claim
                assertThat(another.executionQueue().claimExecution()).isEmpty();
                assertThat(another.executionQueue().executionsWaiting()).as("a closed submitter's work cleared away").isEqualTo(1);
            }
            silent.close();
        }
    }

    /**
     * A front door beating every 2 s (lease 15 s) and a worker configured for a 1 s lease share a queue: the worker
     * judges the door alive by the door's own lease, so it neither skips nor clears away the door's work.
     */
    @Test
    void eachProcessIsJudgedAliveByItsOwnLeaseNotTheAskers() throws Exception {
        PostgresStoreConfig fast = TestCluster.get().freshDatabase();
        PostgresStoreConfig slow = new PostgresStoreConfig(fast.jdbcUrl(), fast.user(), fast.password(), 8,
                Duration.ofSeconds(2), Duration.ofSeconds(15), PostgresStoreConfig.LeaseLoss.TAKEOVER);
        try (PostgresStore door = PostgresStore.open(slow); PostgresStore worker = PostgresStore.open(fast)) {
            door.executionQueue().submit("from-the-door", request("print(1)"));
            Thread.sleep(1500); // the door's last beat is older than the worker's own 1 s lease now
            worker.executionQueue().executionsWaiting();
            assertThat(worker.executionQueue().claimExecution()).map(ExecutionQueue.Claimed::id).contains("from-the-door");
        }
    }

    @Test
    void refusesAnIdThatIsNotOne() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore submitter = PostgresStore.open(config)) {
            assertThatThrownBy(() -> submitter.executionQueue().submit("a b", request("1"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("execution id");
            submitter.executionQueue().submit("same", request("1"));
            submitter.executionQueue().submit("same", request("2"));
            assertThat(submitter.executionQueue().executionsWaiting()).as("the same id queues once").isEqualTo(1);
        }
    }
}
