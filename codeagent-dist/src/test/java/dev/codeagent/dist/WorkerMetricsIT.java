package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real {@code codeagent worker} serves its own /metrics: queue depth, claims and their latency, runs worked. */
@Tag("slow")
class WorkerMetricsIT {

    @TempDir
    Path dir;

    @Test
    void aWorkerShowsWhatItClaimedAndWorked() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = TestCluster.writePrivate(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n"
                + "generator:\n  kind: replay\n  replay:\n    file: " + LaunchedWorker.ROOT.resolve("examples/middle.replay.jsonl") + "\n");
        LaunchedWorker worker = LaunchedWorker.start(dir, config, "worker");
        try (PostgresStore front = PostgresStore.open(db)) {
            assertThat(worker.value("codeagent_worker_claims_total")).isZero();

            front.workQueue().enqueue(Run.started("m1", Task.of("print the median of 3, 1 and 2"), Instant.now()));
            worker.awaitAtLeast("codeagent_worker_runs_worked_total", 1);
            assertThat(worker.value("codeagent_worker_runs_worked_total")).isEqualTo(1);
            assertThat(worker.value("codeagent_worker_claims_total")).isEqualTo(1);
            assertThat(worker.value("codeagent_worker_claim_seconds_count")).isEqualTo(1);
            assertThat(worker.value("codeagent_worker_claim_seconds_sum")).isPositive();
            assertThat(worker.value("codeagent_worker_takeovers_total")).isZero();
            assertThat(worker.value("codeagent_queue_depth")).isZero();
            assertThat(front.runLog().find("m1").orElseThrow().status().isFinal()).isTrue();
        } finally {
            worker.stop();
        }
    }
}
