package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scaled-out shape as separate OS processes, each started by the real launcher: two front doors
 * ({@code codeagent serve} with {@code sandbox.kind: queue}) and one {@code codeagent worker} over one PostgreSQL
 * database. A run accepted by one door is worked by the worker and followed live from the other door; a cancel
 * sent to a door that did not accept the run reaches the worker running it.
 */
@Tag("slow")
class TwoFrontDoorsIT {

    private static final String KEY = "two-doors-test-key-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopAll() throws Exception {
        for (Process p : processes) {
            if (p.isAlive()) {
                new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor(10, TimeUnit.SECONDS);
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    @Test
    void aRunAcceptedByOneDoorIsFollowedAndCancelledThroughTheOther() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        // every run replays the same reply: a task's stdin says whether the program sleeps (the run to cancel)
        Path replay = Files.writeString(dir.resolve("replies.jsonl"), "{\"reply\": \"```python\\nimport sys, time\\n"
                + "if sys.stdin.read().strip() == 'slow':\\n    time.sleep(30)\\nprint('from the worker')\\n```\"}\n");
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(KEY.getBytes(StandardCharsets.UTF_8)));
        Path config = TestCluster.writePrivate(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n"
                + "generator:\n  kind: replay\n  replay:\n    file: " + replay + "\n"
                + "http:\n  port: 0\n  auth:\n    keys:\n      - {name: admin, sha256: " + sha + "}\n");
        URI doorA = serve(config, "door-a");
        URI doorB = serve(config, "door-b");
        LaunchedWorker worker = LaunchedWorker.start(dir, config, "worker");
        processes.add(worker.process());

        HttpResponse<String> accepted = send(HttpRequest.newBuilder(doorA.resolve("/v1/runs"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"print a greeting\",\"stdin\":\"fast\",\"maxAttempts\":1}")));
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        String id = JSON.readTree(accepted.body()).get("id").asText();

        // door B never saw the request: it follows the run through the store as the worker commits it
        List<String> events = events(doorB, id);
        assertThat(events).first().isEqualTo("run-started");
        assertThat(events).contains("verdict").last().isEqualTo("run-finished");
        JsonNode run = JSON.readTree(send(HttpRequest.newBuilder(doorB.resolve("/v1/runs/" + id)).GET()).body());
        assertThat(run.get("status").asText()).as(run.toString()).isEqualTo("SOLVED");
        assertThat(run.get("attempts").get(0).get("execution").get("stdout").asText()).isEqualTo("from the worker\n");

        HttpResponse<String> second = send(HttpRequest.newBuilder(doorB.resolve("/v1/runs"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"wait\",\"stdin\":\"slow\",\"maxAttempts\":1}")));
        String slow = JSON.readTree(second.body()).get("id").asText();
        worker.awaitAtLeast("codeagent_worker_claims_total", 2);
        Thread.sleep(1000); // its program is sleeping in the worker's sandbox now
        HttpResponse<String> cancel = send(HttpRequest.newBuilder(doorA.resolve("/v1/runs/" + slow)).DELETE());
        assertThat(cancel.statusCode()).as(cancel.body()).isEqualTo(202);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        String status;
        do {
            Thread.sleep(200);
            status = JSON.readTree(send(HttpRequest.newBuilder(doorB.resolve("/v1/runs/" + slow)).GET()).body())
                    .get("status").asText();
        } while (!status.equals("CANCELLED") && System.nanoTime() < deadline);
        assertThat(status).as("the worker stopped the run a door it did not come through cancelled").isEqualTo("CANCELLED");
    }

    /** {@code codeagent serve} on a free port, once its log says where it listens. */
    private URI serve(Path config, String name) throws Exception {
        // the doors are on the queue; the worker, sharing the config file, runs programs in a sandbox of its own
        Process p = LaunchedWorker.launch(dir, config, name, "serve", "--set", "sandbox.kind=queue");
        processes.add(p);
        Path err = dir.resolve(name + ".err");
        Path out = dir.resolve(name + ".out");
        Matcher at = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)").matcher("");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && p.isAlive()) {
            at = at.reset(Files.readString(err) + Files.readString(out));
            if (at.find()) {
                return URI.create(at.group(1));
            }
            Thread.sleep(100);
        }
        throw new AssertionError(name + " did not start:\n" + Files.readString(err));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The names of a run's events, read from its stream until the run ends. */
    private List<String> events(URI door, String id) throws Exception {
        HttpResponse<java.io.InputStream> r = http.send(HttpRequest.newBuilder(door.resolve("/v1/runs/" + id + "/events"))
                .header("Authorization", "Bearer " + KEY).header("Accept", "text/event-stream")
                .timeout(java.time.Duration.ofSeconds(60)).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> names = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("event:")) {
                    names.add(line.substring("event:".length()).strip());
                    if (names.get(names.size() - 1).equals("run-finished")) {
                        break;
                    }
                }
            }
        }
        return names;
    }
}
