package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (issue 29, round 4): runs belong to the key that started them and another key finds nothing of them at the
 * runs endpoints (RunOwnershipIT) — but the server's counters still tell it when another key's run starts, runs and
 * ends. {@code GET /health} answers anyone, key or not, with {@code runs.active} and {@code sandbox.running}; a key
 * that names no endpoint groups (the ordinary "app" key of docs/http-api.md, not an operator) reads {@code /metrics},
 * where {@code codeagent_runs_started_total} counts every key's runs. Key B, polling, learns when key A works and how
 * much (a covert channel between tenants, and their activity).
 *
 * <p>What must be true, if tenants are to learn nothing of each other: a caller that is not an operator sees no count
 * that includes other keys' runs — {@code /health} says up/ready to anyone, the counts only to an operator.
 */
@Tag("slow")
class RunSideChannelsIT {

    private static final String ALICE = "alice-test-key-0123456789";
    private static final String BOB = "bob-test-key-0123456789";

    @TempDir
    Path dir;

    @Test
    void anotherKeyLearnsNothingOfARunFromHealthOrMetrics() throws Exception {
        String marker = "codeagent-side-channel-it-" + UUID.randomUUID();
        Path replies = dir.resolve("replies.jsonl");
        String sleeper = "```python\nimport os, sys\nos.execv(sys.executable, [sys.executable, '-c', "
                + "'import time; time.sleep(30)', '" + marker + "'])\n```";
        Files.writeString(replies, Views.MAPPER.createObjectNode().put("reply", sleeper).toString() + "\n");
        try (TestServer s = TestServer.builder().generator(null).set("generator.kind", "replay")
                .set("generator.replay.file", replies.toString())
                // bob: an ordinary key naming no groups, as docs/http-api.md's "app" key; not an operator
                .set("http.auth.keys", "alice:" + ApiKeys.sha256Hex(ALICE) + ":runs,bob:" + ApiKeys.sha256Hex(BOB))
                .start()) {
            String healthBefore = seen(s.get("/health", null));
            String healthBeforeAsBob = seen(s.get("/health", BOB));
            String metricsBefore = runsStarted(s.get("/metrics", BOB));

            HttpResponse<String> started = s.post("/v1/runs", ALICE, "{\"prompt\":\"sleep\",\"limits\":{\"timeoutMs\":30000},"
                    + "\"maxAttempts\":1}");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
            String id = TestServer.json(started).get("id").asText();
            RunsIT.waitFor(() -> pgrep(marker), 15_000, "A's program to start");

            org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
            try {
                soft.assertThat(seen(s.get("/health", null))).as("/health without a key, while A's run runs")
                        .isEqualTo(healthBefore);
                soft.assertThat(seen(s.get("/health", BOB))).as("/health as B, while A's run runs").isEqualTo(healthBeforeAsBob);
                soft.assertThat(runsStarted(s.get("/metrics", BOB))).as("/metrics as B, after A started a run")
                        .isEqualTo(metricsBefore);
            } finally {
                s.delete("/v1/runs/" + id, ALICE);
            }
            soft.assertAll();
        }
    }

    /** What /health says about work in progress (runs and sandbox executions). */
    private static String seen(HttpResponse<String> health) {
        JsonNode h = TestServer.json(health);
        return "runs=" + h.path("runs").path("active") + " running=" + h.path("sandbox").path("running");
    }

    /** The run counter a key sees at /metrics, or its refusal. */
    private static String runsStarted(HttpResponse<String> metrics) {
        if (metrics.statusCode() != 200) {
            return "status " + metrics.statusCode();
        }
        return metrics.body().lines().filter(l -> l.startsWith("codeagent_runs_started")).findFirst().orElse("none");
    }

    private static boolean pgrep(String marker) {
        try {
            Process p = new ProcessBuilder("pgrep", "-f", marker).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor();
            return !out.isBlank();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
