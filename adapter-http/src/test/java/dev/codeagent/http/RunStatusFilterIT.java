package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.store.sqlite.SqliteRunLog;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /v1/runs?status=}: the store filters, so a rare status among many runs comes in full pages, composed with
 * the owner rule (a key sees its own runs, an operator every run), and a status that does not exist is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunStatusFilterIT {

    private static final String ALICE = "alice-filter-test-key-0123456789";
    private static final String BOB = "bob-filter-test-key-0123456789";
    private static final String OPS = "ops-filter-test-key-0123456789";
    private static final Instant T0 = Instant.parse("2026-02-03T04:05:06Z");

    @TempDir
    static Path dir;
    TestServer server;

    /**
     * 300 runs, alice's and bob's alternating: every 60th SOLVED (5, rare among the many), every 7th FAILED, the rest
     * ERROR; run {@code r150} CANCELLED.
     */
    @BeforeAll
    void start() throws Exception {
        Path store = dir.resolve("runs.db");
        try (SqliteRunLog log = SqliteRunLog.open(store)) {
            for (int i = 0; i < 300; i++) {
                String id = String.format("r%03d", i);
                log.started(Run.started(id, Task.of("task " + i), T0.plusSeconds(i), i % 2 == 0 ? "key:alice" : "key:bob"));
                RunStatus status = i == 150 ? RunStatus.CANCELLED : i % 60 == 0 ? RunStatus.SOLVED
                        : i % 7 == 0 ? RunStatus.FAILED : RunStatus.ERROR;
                log.ended(id, status, T0.plusSeconds(i + 1), status == RunStatus.ERROR ? "seeded" : null);
            }
        }
        server = TestServer.builder()
                .set("store.kind", "sqlite")
                .set("store.sqlite.path", store.toString())
                .set("http.auth.keys", "alice:" + ApiKeys.sha256Hex(ALICE) + ":runs,bob:" + ApiKeys.sha256Hex(BOB)
                        + ":runs,ops:" + ApiKeys.sha256Hex(OPS) + ":runs+admin")
                .start();
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static List<String> ids(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        TestServer.json(r).get("runs").forEach(run -> ids.add(run.get("id").asText()));
        return ids;
    }

    @Test
    void aRareStatusComesInFullPagesFromTheStore() {
        // solved: r240 r180 r120 r060 r000, among 300 runs: not one of them on the newest page of all runs
        HttpResponse<String> first = server.get("/v1/runs?status=SOLVED&limit=3", OPS);
        assertThat(ids(first)).containsExactly("r240", "r180", "r120");
        assertThat(TestServer.json(first).get("runs")).allSatisfy(run -> assertThat(run.get("status").asText()).isEqualTo("SOLVED"));
        assertThat(TestServer.json(first).get("next").asText()).isEqualTo("r120");
        // the next link keeps the filter
        assertThat(first.headers().firstValue("Link")).contains("</v1/runs?limit=3&status=SOLVED&before=r120>; rel=\"next\"");
        HttpResponse<String> second = server.get("/v1/runs?status=SOLVED&limit=3&before=r120", OPS);
        assertThat(ids(second)).containsExactly("r060", "r000");
        assertThat(TestServer.json(second).get("next").isNull()).isTrue();
        // lower case and several, comma-separated, with spaces
        assertThat(ids(server.get("/v1/runs?status=solved,%20cancelled&limit=3", OPS))).containsExactly("r240", "r180", "r150");
        assertThat(ids(server.get("/v1/runs?status=RUNNING", OPS))).isEmpty();
        // empty: every status, as without it
        assertThat(ids(server.get("/v1/runs?status=&limit=2", OPS))).containsExactly("r299", "r298");
    }

    @Test
    void aKeySeesOnlyItsOwnRunsOfTheStatus() {
        // alice has the even runs: all the solved ones, and the cancelled one; bob none of them
        assertThat(ids(server.get("/v1/runs?status=SOLVED,CANCELLED&limit=100", ALICE)))
                .containsExactly("r240", "r180", "r150", "r120", "r060", "r000");
        assertThat(ids(server.get("/v1/runs?status=SOLVED,CANCELLED&limit=100", BOB))).isEmpty();
        // bob's failed: the odd multiples of 7 that are not multiples of 60
        List<String> bobsFailed = ids(server.get("/v1/runs?status=FAILED&limit=100", BOB));
        assertThat(bobsFailed).hasSize(21).startsWith("r287", "r273").endsWith("r007");
        // paged by bob, from one of his runs; a run of alice's as the cursor is no run of his
        assertThat(ids(server.get("/v1/runs?status=FAILED&limit=2&before=r287", BOB))).containsExactly("r273", "r259");
        HttpResponse<String> alicesCursor = server.get("/v1/runs?status=FAILED&before=r294", BOB);
        assertThat(alicesCursor.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(alicesCursor).get("errors").get(0).get("field").asText()).isEqualTo("before");
    }

    @Test
    void anUnknownStatusIsRefusedNamingItAndTheOnesThereAre() {
        HttpResponse<String> r = server.get("/v1/runs?status=solved,finished", OPS);
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode p = TestServer.json(r);
        assertThat(p.get("type").asText()).isEqualTo("https://codeagent.dev/problems/validation");
        assertThat(p.get("errors").get(0).get("field").asText()).isEqualTo("status");
        assertThat(p.get("detail").asText()).contains("'finished'")
                .contains("RUNNING, SOLVED, FAILED, ERROR, CANCELLED");
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at dev.");
    }
}
