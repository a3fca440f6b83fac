package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code codeagent worker} killed with SIGKILL in the middle of a run loses its lease, and a second worker
 * process takes the run over and ends it: the run is neither lost nor worked by two live workers at once.
 */
@Tag("slow")
class WorkerKilledIT {

    @TempDir
    Path dir;

    private final List<LaunchedWorker> workers = new ArrayList<>();

    @AfterEach
    void stopWorkers() throws Exception {
        for (LaunchedWorker w : workers) {
            w.stop();
        }
    }

    @Test
    void aWorkerKilledMidRunLosesItAndAnotherFinishesIt() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        // each attempt runs for 4 s: long enough to kill the first worker while it runs
        Path replay = Files.writeString(dir.resolve("slow.jsonl"),
                "{\"reply\": \"```python\\nimport time\\ntime.sleep(4)\\nprint('done')\\n```\"}\n");
        Path config = TestCluster.writePrivate(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n"
                + "    heartbeat: 200ms\n    leaseTimeout: 1s\n"
                + "generator:\n  kind: replay\n  replay:\n    file: " + replay + "\n");
        try (PostgresStore front = PostgresStore.open(db)) {
            front.workQueue().enqueue(Run.started("k1", Task.of("print done after a while"), Instant.now()));
            LaunchedWorker first = start(config, "first");
            first.awaitAtLeast("codeagent_worker_claims_total", 1);
            Thread.sleep(1000); // the run is in its sandbox now
            Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(first.process().pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
            assertThat(first.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(front.runLog().find("k1").orElseThrow().status()).as("killed mid-run, not ended").isEqualTo(RunStatus.RUNNING);

            LaunchedWorker second = start(config, "second");
            second.awaitAtLeast("codeagent_worker_runs_worked_total", 1);
            assertThat(second.value("codeagent_worker_takeovers_total")).as("taken over after a lost lease").isEqualTo(1);
            Run done = front.runLog().find("k1").orElseThrow();
            assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SOLVED);
            assertThat(done.attempts()).hasSize(1);
            assertThat(done.lastAttempt().execution().stdout().text()).isEqualTo("done\n");
            // where it was made: the second worker's process (the launcher exec()s its JVM), in its process tier
            assertThat(done.lastAttempt().placement().pid()).isEqualTo(second.process().pid());
            assertThat(done.lastAttempt().placement().tier()).isEqualTo("process");
            Process show = LaunchedWorker.launch(dir, config, "show", "runs", "show", "--all", "k1");
            assertThat(show.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(Files.readString(dir.resolve("show.out"))).as("runs show, from the shared store")
                    .contains("made on   " + done.lastAttempt().placement().host() + " (pid " + second.process().pid()
                            + ", process tier)");
        }
    }

    private LaunchedWorker start(Path config, String name) throws Exception {
        LaunchedWorker w = LaunchedWorker.start(dir, config, name);
        workers.add(w);
        return w;
    }
}
