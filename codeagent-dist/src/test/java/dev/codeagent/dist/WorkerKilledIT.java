package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.store.postgres.PostgresRunLog;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    private static final Path ROOT = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private final List<Process> workers = new ArrayList<>();

    @AfterEach
    void stopWorkers() throws Exception {
        for (Process w : workers) {
            if (w.isAlive()) {
                new ProcessBuilder("kill", "-TERM", Long.toString(w.pid())).start().waitFor(10, TimeUnit.SECONDS);
                if (!w.waitFor(30, TimeUnit.SECONDS)) {
                    w.destroyForcibly();
                }
            }
        }
    }

    @Test
    void aWorkerKilledMidRunLosesItAndAnotherFinishesIt() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        // each attempt runs for 4 s: long enough to kill the first worker while it runs
        Path replay = Files.writeString(dir.resolve("slow.jsonl"),
                "{\"reply\": \"```python\\nimport time\\ntime.sleep(4)\\nprint('done')\\n```\"}\n");
        Path config = Files.writeString(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: x\n"
                + "    heartbeat: 200ms\n    leaseTimeout: 1s\n"
                + "generator:\n  kind: replay\n  replay:\n    file: " + replay + "\n");
        try (PostgresRunLog front = PostgresRunLog.open(db)) {
            front.enqueue(Run.started("k1", Task.of("print done after a while"), Instant.now()));
            Worker first = start(config, "first");
            awaitAtLeast(first.metrics, "codeagent_worker_claims_total", 1);
            Thread.sleep(1000); // the run is in its sandbox now
            Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(first.process.pid())).start();
            assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
            assertThat(first.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(front.find("k1").orElseThrow().status()).as("killed mid-run, not ended").isEqualTo(RunStatus.RUNNING);

            Worker second = start(config, "second");
            awaitAtLeast(second.metrics, "codeagent_worker_runs_worked_total", 1);
            assertThat(value(second.metrics, "codeagent_worker_takeovers_total")).as("taken over after a lost lease").isEqualTo(1);
            Run done = front.find("k1").orElseThrow();
            assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.SOLVED);
            assertThat(done.attempts()).hasSize(1);
            assertThat(done.lastAttempt().execution().stdout().text()).isEqualTo("done\n");
        }
    }

    private record Worker(Process process, URI metrics) {
    }

    private Worker start(Path config, String name) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(ROOT.resolve("codeagent").toString(), "worker", "--metrics-port", "0"))
                .directory(dir.toFile());
        pb.environment().put("CODEAGENT_SKIP_BUILD", "1");
        pb.environment().put("CODEAGENT_NO_DAEMON", "1");
        pb.environment().put("CODEAGENT_CONFIG", config.toString());
        Path err = dir.resolve(name + ".err");
        pb.redirectError(err.toFile()).redirectOutput(dir.resolve(name + ".out").toFile());
        Process p = pb.start();
        workers.add(p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Matcher at = Pattern.compile("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)").matcher("");
        while (System.nanoTime() < deadline && p.isAlive()) {
            at = at.reset(Files.readString(err));
            if (at.find()) {
                return new Worker(p, URI.create(at.group(1)));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("worker " + name + " did not start:\n" + Files.readString(err));
    }

    private static void awaitAtLeast(URI metrics, String name, double at) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (value(metrics, name) < at) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " did not reach " + at + " in 60 s");
            }
            Thread.sleep(100);
        }
    }

    private static double value(URI metrics, String name) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(metrics).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(r.body());
        assertThat(m.find()).as(name + " in\n" + r.body()).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
