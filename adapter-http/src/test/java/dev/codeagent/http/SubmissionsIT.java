package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Executions collected later: {@code POST /v1/executions/batch} answers ids at once and {@code GET
 * /v1/executions?ids=…} returns them; {@code "wait": false} and {@code Prefer: respond-async} answer 202 + Location.
 * Real server, real process sandbox, real HTTP client.
 */
@Tag("slow")
class SubmissionsIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aBatchOf200CompletesWithEveryResult() throws Exception {
        StringBuilder body = new StringBuilder("{\"submissions\":[");
        for (int i = 0; i < 200; i++) {
            body.append(i == 0 ? "" : ",").append("{\"language\":\"python\",\"code\":\"print(").append(i).append(")\"}");
        }
        body.append("]}");
        long t0 = System.nanoTime();
        HttpResponse<String> accepted = server.post("/v1/executions/batch", TestServer.ADMIN_KEY, body.toString());
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        assertThat((System.nanoTime() - t0) / 1_000_000).as("ids answered at once, before the executions ran").isLessThan(5000);
        List<String> ids = new ArrayList<>();
        TestServer.json(accepted).get("ids").forEach(n -> ids.add(n.asText()));
        assertThat(ids).hasSize(200);
        assertThat(new HashSet<>(ids)).hasSize(200);

        JsonNode executions = awaitDone(ids, 180);
        for (int i = 0; i < 200; i++) {
            JsonNode e = executions.get(i);
            assertThat(e.get("id").asText()).isEqualTo(ids.get(i));
            assertThat(e.get("status").asText()).isEqualTo("DONE");
            assertThat(e.get("result").get("outcome").asText()).as(e.toString()).isEqualTo("OK");
            assertThat(e.get("result").get("stdout").asText()).isEqualTo(i + "\n");
        }
    }

    @Test
    void collectingAnswersEveryIdInItsPlaceUnknownOnesAsNotFound() {
        HttpResponse<String> accepted = server.post("/v1/executions/batch", TestServer.ADMIN_KEY,
                "{\"submissions\":[{\"language\":\"python\",\"code\":\"print('x')\"}]}");
        String id = TestServer.json(accepted).get("ids").get(0).asText();
        HttpResponse<String> r = server.get("/v1/executions?ids=ex_nothing," + id + ",not-an-id", TestServer.ADMIN_KEY);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode list = TestServer.json(r).get("executions");
        assertThat(list).hasSize(3);
        assertThat(list.get(0).get("status").asText()).isEqualTo("NOT_FOUND");
        assertThat(list.get(1).get("id").asText()).isEqualTo(id);
        assertThat(list.get(1).get("status").asText()).isIn("QUEUED", "RUNNING", "DONE");
        assertThat(list.get(2).get("status").asText()).isEqualTo("NOT_FOUND");
        // another key's submission is, to a key, one that does not exist
        assertThat(server.get("/v1/executions/" + id, TestServer.EXEC_KEY).statusCode()).isEqualTo(404);
        assertThat(TestServer.json(server.get("/v1/executions?ids=" + id, TestServer.EXEC_KEY)).get("executions").get(0)
                .get("status").asText()).isEqualTo("NOT_FOUND");
        assertThat(server.get("/v1/executions", TestServer.ADMIN_KEY).statusCode()).isEqualTo(400);
    }

    @Test
    void aBatchWithOneBadSubmissionIsRefusedWholeNamingIt() {
        HttpResponse<String> r = server.post("/v1/executions/batch", TestServer.ADMIN_KEY,
                "{\"submissions\":[{\"language\":\"python\",\"code\":\"print(1)\"},{\"language\":\"python\"},"
                        + "{\"language\":\"cobol\",\"code\":\"x\"}]}");
        assertThat(r.statusCode()).isEqualTo(400);
        List<String> fields = new ArrayList<>();
        TestServer.json(r).get("errors").forEach(e -> fields.add(e.get("field").asText()));
        assertThat(fields).containsExactly("submissions[1].code", "submissions[2].language");

        StringBuilder tooMany = new StringBuilder("{\"submissions\":[");
        for (int i = 0; i < 201; i++) {
            tooMany.append(i == 0 ? "" : ",").append("{\"language\":\"python\",\"code\":\"print(1)\"}");
        }
        HttpResponse<String> big = server.post("/v1/executions/batch", TestServer.ADMIN_KEY, tooMany.append("]}").toString());
        assertThat(big.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(big).get("detail").asText()).contains("at most 200").contains("http.maxBatchSize");
        assertThat(server.post("/v1/executions/batch", TestServer.ADMIN_KEY, "{\"submissions\":[]}").statusCode()).isEqualTo(400);
    }

    @Test
    void waitFalseAnswers202WithWhereTheResultWillBe() throws Exception {
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"import time\\ntime.sleep(0.5)\\nprint(6*7)\",\"wait\":false}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        String location = r.headers().firstValue("Location").orElseThrow();
        JsonNode accepted = TestServer.json(r);
        assertThat(location).isEqualTo("/v1/executions/" + accepted.get("id").asText());
        assertThat(accepted.get("status").asText()).isIn("QUEUED", "RUNNING");
        assertThat(accepted.get("result").isNull()).isTrue();
        JsonNode done = awaitDone(List.of(accepted.get("id").asText()), 60).get(0);
        assertThat(done.get("result").get("stdout").asText()).isEqualTo("42\n");
        assertThat(TestServer.json(server.get(location, TestServer.ADMIN_KEY)).get("result").get("stdout").asText()).isEqualTo("42\n");
    }

    @Test
    void preferRespondAsyncDoesTheSame() throws Exception {
        HttpResponse<String> r = server.send(server.request("/v1/executions").header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                .header("Content-Type", "application/json").header("Prefer", "return=minimal, respond-async")
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"python\",\"code\":\"print('later')\"}")).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonNode done = awaitDone(List.of(TestServer.json(r).get("id").asText()), 60).get(0);
        assertThat(done.get("result").get("stdout").asText()).isEqualTo("later\n");
    }

    /** Polls {@code GET /v1/executions?ids=…} until every one is DONE; returns the last answer's list. */
    static JsonNode awaitDone(List<String> ids, int seconds) throws InterruptedException {
        return awaitDone(server, ids, seconds);
    }

    static JsonNode awaitDone(TestServer s, List<String> ids, int seconds) throws InterruptedException {
        return awaitDone(s, "executions", ids, seconds);
    }

    /** As {@link #awaitDone(List, int)} for the submissions of {@code /v1/<collection>} (executions, judgements). */
    static JsonNode awaitDone(TestServer s, String collection, List<String> ids, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        JsonNode list = null;
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = s.get("/v1/" + collection + "?ids=" + String.join(",", ids), TestServer.ADMIN_KEY);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            list = TestServer.json(r).get(collection);
            boolean all = true;
            for (JsonNode e : list) {
                all &= e.get("status").asText().equals("DONE");
            }
            if (all) {
                return list;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("not all done within " + seconds + "s: " + list);
    }
}
