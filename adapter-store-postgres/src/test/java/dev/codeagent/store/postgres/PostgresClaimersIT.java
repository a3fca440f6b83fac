package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Several claimers, as threads and as separate OS processes, and a claimer killed with SIGKILL. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PostgresClaimersIT {

    private static final int ITEMS = 3000;

    @Test
    void threadsClaimEachOfThousandsOfRunsExactlyOnce() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        int claimers = 4;
        try (PostgresStore front = PostgresStore.open(config)) {
            enqueue(front, ITEMS);
            List<PostgresStore> logs = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(claimers);
            CountDownLatch go = new CountDownLatch(1);
            try {
                List<Future<List<String>>> got = new ArrayList<>();
                for (int t = 0; t < claimers; t++) {
                    PostgresStore mine = PostgresStore.open(config); // an owner of its own, as a process would be
                    logs.add(mine);
                    got.add(pool.submit(() -> {
                        go.await();
                        List<String> claimed = new ArrayList<>();
                        for (Optional<WorkQueue.Claim> c = mine.workQueue().claim(); c.isPresent(); c = mine.workQueue().claim()) {
                            claimed.add(c.get().run().id());
                            mine.runLog().ended(c.get().run().id(), RunStatus.SOLVED, PostgresRunLogIT.T0.plusSeconds(1), null);
                            mine.workQueue().finished(c.get().run().id());
                        }
                        return claimed;
                    }));
                }
                go.countDown();
                List<List<String>> each = new ArrayList<>();
                for (Future<List<String>> f : got) {
                    each.add(f.get(200, TimeUnit.SECONDS));
                }
                assertClaimedOnceEach(each);
                assertThat(front.workQueue().depth()).isZero();
                assertThat(front.runLog().recent(1000, null)).allSatisfy(r -> assertThat(r.status()).isEqualTo(RunStatus.SOLVED));
            } finally {
                pool.shutdownNow();
                logs.forEach(PostgresStore::close);
            }
        }
    }

    @Test
    void separateProcessesClaimEachOfThousandsOfRunsExactlyOnce() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore front = PostgresStore.open(config)) {
            enqueue(front, ITEMS);
            List<Process> processes = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    processes.add(claimer(config, "drain"));
                }
                ExecutorService readers = Executors.newFixedThreadPool(processes.size());
                List<Future<List<String>>> outs = new ArrayList<>();
                for (Process p : processes) {
                    outs.add(readers.submit(() -> readClaims(p)));
                }
                List<List<String>> each = new ArrayList<>();
                for (Future<List<String>> f : outs) {
                    each.add(f.get(240, TimeUnit.SECONDS));
                }
                readers.shutdown();
                for (Process p : processes) {
                    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
                    assertThat(p.exitValue()).isZero();
                }
                assertClaimedOnceEach(each);
                assertThat(front.workQueue().depth()).isZero();
            } finally {
                processes.forEach(Process::destroyForcibly);
            }
        }
    }

    @Test
    void aWorkerKilledWithSigkillLosesItsLeaseAndTheRunIsTakenOverFromItsLastAttempt() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore front = PostgresStore.open(config); PostgresStore next = PostgresStore.open(config)) {
            front.workQueue().enqueue(Run.started("victim", Task.of("x"), PostgresRunLogIT.T0));
            Process holder = claimer(config, "hold");
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("ready");
                assertThat(out.readLine()).isEqualTo("claimed victim");
                assertThat(out.readLine()).isEqualTo("wrote");
                assertThat(next.workQueue().claim()).isEmpty(); // held while the holder lives
                holder.destroyForcibly(); // SIGKILL: no goodbye, no unregistering
                assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
                assertThat(holder.exitValue()).isEqualTo(137);

                long t0 = System.nanoTime();
                Optional<WorkQueue.Claim> taken = Optional.empty();
                while (taken.isEmpty() && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20)) {
                    taken = next.workQueue().claim();
                    Thread.sleep(100);
                }
                assertThat(taken).isPresent();
                assertThat(taken.get().times()).isEqualTo(2);
                assertThat(taken.get().run().attempts()).hasSize(1);
                assertThat(front.runLog().find("victim").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
            } finally {
                holder.destroyForcibly();
            }
        }
    }

    private static void enqueue(PostgresStore front, int n) {
        for (int i = 0; i < n; i++) {
            front.workQueue().enqueue(Run.started(String.format("item-%05d", i), Task.of("print(1)"), PostgresRunLogIT.T0));
        }
        assertThat(front.workQueue().depth()).isEqualTo(n);
    }

    private static void assertClaimedOnceEach(List<List<String>> each) {
        Map<String, Integer> times = new HashMap<>();
        each.forEach(ids -> ids.forEach(id -> times.merge(id, 1, Integer::sum)));
        assertThat(times).hasSize(ITEMS);
        assertThat(Collections.max(times.values())).as("most claims of one run").isEqualTo(1);
        assertThat(each).allSatisfy(ids -> assertThat(ids).as("the work spread over every claimer").isNotEmpty());
    }

    private static Process claimer(PostgresStoreConfig config, String mode) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                QueueClaimer.class.getName(), config.jdbcUrl(), config.user(), mode);
        // in the environment, which only our uid can read (/proc/PID/environ), not on the command line everyone can
        pb.environment().put(QueueClaimer.PASSWORD_VARIABLE, config.password());
        return pb.redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static List<String> readClaims(Process p) throws IOException {
        List<String> ids = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("claimed ")) {
                    ids.add(line.substring(8));
                }
            }
        }
        return ids;
    }
}
