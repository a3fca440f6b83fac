package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs belong to the key that started them, over a real socket: key A starts a run (the replay generator writes
 * a program that sleeps, so the run stays RUNNING), key B, which may use the runs endpoints too, finds nothing of
 * it anywhere (404 as for an id that never existed, absent from its list) and its cancel changes nothing; a key
 * with the admin group sees it and may cancel it.
 */
@Tag("slow")
class RunOwnershipIT {

    private static final String ALICE = "alice-test-key-0123456789";
    private static final String BOB = "bob-test-key-0123456789";
    private static final String OPS = "ops-test-key-0123456789";

    private final String marker = "codeagent-ownership-it-" + UUID.randomUUID();

    @TempDir
    Path dir;

    /** The server's stop ends its runs; should one survive, this test's own sleeper is removed by pid. */
    @AfterEach
    void killSleepers() {
        sleeperPids().forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }

    private TestServer.Builder server() throws IOException {
        Path replies = dir.resolve("replies.jsonl");
        String sleeper = "```python\nimport os, sys\nos.execv(sys.executable, [sys.executable, '-c', "
                + "'import time; time.sleep(60)', '" + marker + "'])\n```";
        Files.writeString(replies, Views.MAPPER.createObjectNode().put("reply", sleeper).toString() + "\n");
        return TestServer.builder()
                .generator(null) // the configured one: replay
                .set("generator.kind", "replay")
                .set("generator.replay.file", replies.toString())
                .set("http.auth.keys", "alice:" + ApiKeys.sha256Hex(ALICE) + ":runs,bob:" + ApiKeys.sha256Hex(BOB)
                        + ":runs,ops:" + ApiKeys.sha256Hex(OPS) + ":runs+admin");
    }

    @Test
    void anotherKeyFindsNothingOfARunAndCannotCancelItWhileAnOperatorSeesAndCancelsIt() throws Exception {
        try (TestServer s = server().start()) {
            HttpResponse<String> started = s.post("/v1/runs", ALICE, "{\"prompt\":\"sleep\",\"limits\":{\"timeoutMs\":60000},"
                    + "\"maxAttempts\":1}");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
            String id = TestServer.json(started).get("id").asText();
            assertThat(TestServer.json(started).get("owner").asText()).isEqualTo("key:alice");
            RunsIT.waitFor(this::sleeperRuns, 15_000, "the run's program to start");

            // B: every door to the run answers as for a run that does not exist
            String unknown = "nosuchrun0000000";
            assertSameNotFound(s.get("/v1/runs/" + id, BOB), s.get("/v1/runs/" + unknown, BOB), id, unknown);
            assertSameNotFound(s.get("/v1/runs/" + id + "/events", BOB), s.get("/v1/runs/" + unknown + "/events", BOB), id, unknown);
            try (SseReader sse = new SseReader(s, id, BOB, null)) {
                assertThat(sse.response.statusCode()).as("an EventSource's request").isEqualTo(404);
            }
            assertSameNotFound(s.delete("/v1/runs/" + id, BOB), s.delete("/v1/runs/" + unknown, BOB), id, unknown);
            assertThat(ids(s.get("/v1/runs", BOB))).doesNotContain(id);
            HttpResponse<String> pagedAfter = s.get("/v1/runs?before=" + id, BOB);
            HttpResponse<String> pagedAfterNothing = s.get("/v1/runs?before=" + unknown, BOB);
            assertThat(pagedAfter.statusCode()).isEqualTo(400);
            assertThat(detail(pagedAfter).replace(id, "ID")).isEqualTo(detail(pagedAfterNothing).replace(unknown, "ID"));

            // B's cancel was not processed: the run and its program go on, and A sees no end
            Thread.sleep(500);
            JsonNode asAlice = TestServer.json(s.get("/v1/runs/" + id, ALICE));
            assertThat(asAlice.get("status").asText()).isEqualTo("RUNNING");
            assertThat(asAlice.get("reason").isNull()).isTrue();
            assertThat(sleeperRuns()).as("the run's program still runs").isTrue();
            assertThat(ids(s.get("/v1/runs", ALICE))).contains(id);

            // B's own run is B's alone, and A cannot see it either
            HttpResponse<String> bobs = s.post("/v1/runs", BOB, "{\"prompt\":\"sleep\",\"limits\":{\"timeoutMs\":60000},\"maxAttempts\":1}");
            String bobsId = TestServer.json(bobs).get("id").asText();
            assertThat(ids(s.get("/v1/runs", BOB))).containsExactly(bobsId);
            assertThat(s.get("/v1/runs/" + bobsId, ALICE).statusCode()).isEqualTo(404);
            assertThat(ids(s.get("/v1/runs", ALICE))).containsExactly(id);

            // the operator sees both, with whose they are, and follows and cancels A's
            assertThat(ids(s.get("/v1/runs", OPS))).containsExactlyInAnyOrder(id, bobsId);
            assertThat(TestServer.json(s.get("/v1/runs/" + id, OPS)).get("owner").asText()).isEqualTo("key:alice");
            try (SseReader sse = new SseReader(s, id, OPS, null)) {
                assertThat(sse.response.statusCode()).isEqualTo(200);
                assertThat(sse.next().name()).isEqualTo("run-started");
            }
            HttpResponse<String> cancel = s.delete("/v1/runs/" + id, OPS);
            assertThat(cancel.statusCode()).as(cancel.body()).isIn(200, 202);
            RunsIT.waitFor(() -> TestServer.json(s.get("/v1/runs/" + id, ALICE)).get("status").asText().equals("CANCELLED"),
                    10_000, "A's run to end CANCELLED by the operator");
            assertThat(s.delete("/v1/runs/" + bobsId, BOB).statusCode()).isIn(200, 202);
        }
    }

    @Test
    void aRunQueuedForWorkersBelongsToItsKeyOnEveryFrontDoor() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        TestServer.Builder b = server().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()).set("sandbox.kind", "queue");
        try (TestServer door = b.start(); TestServer otherDoor = b.start(); PostgresStore worker = PostgresStore.open(db)) {
            HttpResponse<String> accepted = door.post("/v1/runs", ALICE, "{\"prompt\":\"say hi\",\"maxAttempts\":1}");
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
            String id = TestServer.json(accepted).get("id").asText();
            assertThat(worker.workQueue().claim()).map(c -> c.run().owner()).as("the worker gets the run with its owner").contains("key:alice");

            for (TestServer s : List.of(door, otherDoor)) {
                assertThat(s.get("/v1/runs/" + id, BOB).statusCode()).isEqualTo(404);
                assertThat(s.get("/v1/runs/" + id + "/events", BOB).statusCode()).isEqualTo(404);
                assertThat(s.delete("/v1/runs/" + id, BOB).statusCode()).isEqualTo(404);
                assertThat(ids(s.get("/v1/runs", BOB))).isEmpty();
                assertThat(s.get("/v1/runs/" + id, ALICE).statusCode()).isEqualTo(200);
                assertThat(ids(s.get("/v1/runs", OPS))).containsExactly(id);
            }
            assertThat(worker.runLog().find(id).orElseThrow().status().name()).as("B's cancels reached no worker").isEqualTo("RUNNING");
            assertThat(otherDoor.delete("/v1/runs/" + id, ALICE).statusCode()).isEqualTo(202);
        }
    }

    private static void assertSameNotFound(HttpResponse<String> theirs, HttpResponse<String> none, String id, String unknown) {
        assertThat(theirs.statusCode()).as(theirs.body()).isEqualTo(404);
        assertThat(none.statusCode()).isEqualTo(404);
        // nothing in the answer tells an existing run of another key from no run at all
        assertThat(detail(theirs).replace(id, "ID")).isEqualTo(detail(none).replace(unknown, "ID"));
        assertThat(theirs.body()).doesNotContain("alice").doesNotContain("sleep");
    }

    private static String detail(HttpResponse<String> r) {
        JsonNode p = TestServer.json(r);
        return p.get("type").asText() + " | " + p.get("title").asText() + " | " + p.get("detail").asText();
    }

    private static List<String> ids(HttpResponse<String> page) {
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        TestServer.json(page).get("runs").forEach(r -> ids.add(r.get("id").asText()));
        return ids;
    }

    private boolean sleeperRuns() {
        return !sleeperPids().isEmpty();
    }

    private List<Long> sleeperPids() {
        try {
            Process p = new ProcessBuilder("pgrep", "-f", marker).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            p.waitFor();
            return out.lines().filter(l -> !l.isBlank()).map(String::trim).map(Long::parseLong).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }
}
