package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Run;
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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real {@code codeagent worker} serves its own /metrics: queue depth, claims and their latency, runs worked. */
@Tag("slow")
class WorkerMetricsIT {

    private static final Path ROOT = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void aWorkerShowsWhatItClaimedAndWorked() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = Files.writeString(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: x\n"
                + "generator:\n  kind: replay\n  replay:\n    file: " + ROOT.resolve("examples/middle.replay.jsonl") + "\n");
        ProcessBuilder pb = new ProcessBuilder(List.of(ROOT.resolve("codeagent").toString(), "worker", "--metrics-port", "0"))
                .directory(dir.toFile());
        pb.environment().put("CODEAGENT_SKIP_BUILD", "1");
        pb.environment().put("CODEAGENT_NO_DAEMON", "1");
        pb.environment().put("CODEAGENT_CONFIG", config.toString());
        Path err = dir.resolve("err");
        pb.redirectError(err.toFile()).redirectOutput(dir.resolve("out").toFile());
        Process worker = pb.start();
        try (PostgresRunLog front = PostgresRunLog.open(db)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(err).contains("/metrics") && System.nanoTime() < deadline && worker.isAlive()) {
                Thread.sleep(100);
            }
            Matcher at = Pattern.compile("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)").matcher(Files.readString(err));
            assertThat(at.find()).as(Files.readString(err)).isTrue();
            URI metrics = URI.create(at.group(1));
            assertThat(value(metrics, "codeagent_worker_claims_total")).isZero();

            front.enqueue(Run.started("m1", Task.of("print the median of 3, 1 and 2"), Instant.now()));
            while (value(metrics, "codeagent_worker_runs_worked_total") < 1 && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(value(metrics, "codeagent_worker_runs_worked_total")).isEqualTo(1);
            assertThat(value(metrics, "codeagent_worker_claims_total")).isEqualTo(1);
            assertThat(value(metrics, "codeagent_worker_claim_seconds_count")).isEqualTo(1);
            assertThat(value(metrics, "codeagent_worker_claim_seconds_sum")).isPositive();
            assertThat(value(metrics, "codeagent_worker_takeovers_total")).isZero();
            assertThat(value(metrics, "codeagent_queue_depth")).isZero();
            assertThat(front.find("m1").orElseThrow().status().isFinal()).isTrue();
        } finally {
            new ProcessBuilder("kill", "-TERM", Long.toString(worker.pid())).start().waitFor(10, TimeUnit.SECONDS);
            if (!worker.waitFor(30, TimeUnit.SECONDS)) {
                worker.destroyForcibly();
            }
        }
    }

    private static double value(URI metrics, String name) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(metrics).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(r.body());
        assertThat(m.find()).as(name + " in\n" + r.body()).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
