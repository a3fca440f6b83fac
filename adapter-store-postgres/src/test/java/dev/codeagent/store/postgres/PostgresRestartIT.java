package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The database restarts while a run is being written, or executions are queued: nothing is lost or doubled. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PostgresRestartIT {

    @Test
    void ridesOutARestartMidRunLosingAndDuplicatingNothing() throws Exception {
        TestCluster cluster = TestCluster.get();
        PostgresStoreConfig config = cluster.freshDatabase();
        int attempts = 300;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (PostgresStore log = PostgresStore.open(config); RunChanges changes = log.changes()) {
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            changes.watch(heard::add);
            log.runLog().started(Run.started("through-restart", Task.of("x"), PostgresRunLogIT.T0));
            Future<?> writer = pool.submit(() -> {
                for (int n = 1; n <= attempts; n++) {
                    log.runLog().attemptFinished("through-restart", PostgresRunLogIT.printed(n, n + "\n"));
                    Thread.sleep(5);
                }
                log.runLog().ended("through-restart", RunStatus.SOLVED, PostgresRunLogIT.T0.plusSeconds(1), null);
                return null;
            });
            while (log.runLog().find("through-restart").orElseThrow().attempts().size() < 50) {
                Thread.sleep(20);
            }
            cluster.restart(Duration.ofSeconds(2));
            writer.get(90, TimeUnit.SECONDS);

            Run run = log.runLog().find("through-restart").orElseThrow();
            assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
            assertThat(run.attempts()).extracting(Attempt::number)
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, attempts).boxed().toList());
            // the listener came back too: a change after the restart is heard
            heard.clear();
            log.runLog().started(Run.started("after", Task.of("y"), PostgresRunLogIT.T0));
            String got;
            do {
                got = heard.poll(10, TimeUnit.SECONDS);
            } while (RunChanges.ANY.equals(got));
            assertThat(got).isEqualTo("after");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void queuedExecutionsRideOutARestartEachResultComingBackOnce() throws Exception {
        TestCluster cluster = TestCluster.get();
        PostgresStoreConfig config = cluster.freshDatabase();
        int n = 200;
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (PostgresStore submitter = PostgresStore.open(config); PostgresStore worker = PostgresStore.open(config)) {
            for (int i = 0; i < n; i++) {
                submitter.executionQueue().submit("x" + i, PostgresExecutionQueueIT.request("print(" + i + ")"));
            }
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Future<?> working = pool.submit(() -> {
                while (!stop.get()) {
                    var c = worker.executionQueue().claimExecution();
                    if (c.isEmpty()) {
                        worker.executionQueue().awaitExecutions(Duration.ofMillis(200));
                        continue;
                    }
                    Thread.sleep(5);
                    worker.executionQueue().complete(c.get().id(), PostgresExecutionQueueIT.printed(c.get().id()));
                }
                return null;
            });
            java.util.Map<String, Integer> got = new java.util.HashMap<>();
            boolean restarted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (got.size() < n && System.nanoTime() < deadline) {
                submitter.executionQueue().awaitResults(Duration.ofMillis(500));
                submitter.executionQueue().takeResults().forEach((id, e) -> {
                    assertThat(e.stdout().text()).isEqualTo(id);
                    got.merge(id, 1, Integer::sum);
                });
                if (!restarted && got.size() >= 40) {
                    cluster.restart(Duration.ofSeconds(2));
                    restarted = true;
                }
            }
            stop.set(true);
            working.get(30, TimeUnit.SECONDS);
            assertThat(restarted).isTrue();
            assertThat(got).hasSize(n);
            assertThat(got.values()).as("each result once").containsOnly(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
