package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/executions} queues instead of refusing: more requests than places all get their answer, the keys
 * take their turns (one key's burst does not make another key wait behind all of it), and 503 + Retry-After comes only
 * when the queue is full or the wait ran out. Real server, real process sandbox, real HTTP client.
 */
@Tag("slow")
class ExecutionQueueIT {

    private static final String PRINT = "{\"language\":\"python\",\"code\":\"print(1)\"}";
    private static final String NAP = "{\"language\":\"python\",\"code\":\"import time\\ntime.sleep(0.4)\\nprint('%s')\"}";

    @Test
    void moreRequestsThanPlacesAllGetTheirAnswer() throws Exception {
        try (TestServer s = TestServer.builder().set("http.maxConcurrentExecutions", "1").start()) {
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                answers.add(s.client.sendAsync(post(s, TestServer.ADMIN_KEY, PRINT), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> a : answers) {
                HttpResponse<String> r = a.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(TestServer.json(r).get("stdout").asText()).isEqualTo("1\n");
            }
        }
    }

    @Test
    void oneKeysBurstDoesNotStarveAnotherKey() throws Exception {
        try (TestServer s = TestServer.builder().set("http.maxConcurrentExecutions", "1").start()) {
            List<String> finished = new CopyOnWriteArrayList<>();
            List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
            // key "admin" sends six at once: one runs, five queue
            for (int i = 0; i < 6; i++) {
                String name = "admin" + i;
                answers.add(s.client.sendAsync(post(s, TestServer.ADMIN_KEY, NAP.formatted(name)), HttpResponse.BodyHandlers.ofString())
                        .whenComplete((r, e) -> finished.add(name)));
                // one at a time, so that their order in the queue is the order sent
                if (i == 0) {
                    ProtectionIT.waitUntilInFlight(s);
                } else {
                    awaitQueued(s, i);
                }
            }
            // then key "exec" sends one
            answers.add(s.client.sendAsync(post(s, TestServer.EXEC_KEY, NAP.formatted("exec")), HttpResponse.BodyHandlers.ofString())
                    .whenComplete((r, e) -> finished.add("exec")));
            for (CompletableFuture<HttpResponse<String>> a : answers) {
                HttpResponse<String> r = a.get(60, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            // first come first served would put exec last, behind all six; in turns it comes right after the key
            // "admin" had its next one (the running one, then admin's turn, then exec's)
            assertThat(finished).hasSize(7);
            assertThat(finished.indexOf("exec")).as("order served: " + finished).isLessThanOrEqualTo(2);
            assertThat(finished.subList(0, 2)).as("order served: " + finished).containsExactly("admin0", "admin1");
        }
    }

    @Test
    void aBatchTakesItsTurnsWithAnotherKeysRequests() throws Exception {
        try (TestServer s = TestServer.builder().set("http.maxConcurrentExecutions", "1").start()) {
            StringBuilder batch = new StringBuilder("{\"submissions\":[");
            for (int i = 0; i < 10; i++) {
                batch.append(i == 0 ? "" : ",").append(NAP.formatted("b" + i));
            }
            HttpResponse<String> accepted = s.post("/v1/executions/batch", TestServer.ADMIN_KEY, batch.append("]}").toString());
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
            List<String> ids = new ArrayList<>();
            TestServer.json(accepted).get("ids").forEach(n -> ids.add(n.asText()));
            ProtectionIT.waitUntilInFlight(s);

            // another key's request, sent after the whole batch was queued, waits one turn, not ten
            HttpResponse<String> other = s.post("/v1/executions", TestServer.EXEC_KEY, PRINT);
            assertThat(other.statusCode()).as(other.body()).isEqualTo(200);
            int done = 0;
            for (com.fasterxml.jackson.databind.JsonNode e : TestServer.json(s.get("/v1/executions?ids=" + String.join(",", ids),
                    TestServer.ADMIN_KEY)).get("executions")) {
                done += e.get("status").asText().equals("DONE") ? 1 : 0;
            }
            assertThat(done).as("batch executions done when the other key's request was answered").isLessThanOrEqualTo(3);
            SubmissionsIT.awaitDone(s, ids, 60);
        }
    }

    @Test
    void refusesWith503AndRetryAfterOnlyWhenTheQueueIsFullOrTheWaitRanOut() throws Exception {
        try (TestServer s = TestServer.builder().set("http.maxConcurrentExecutions", "1").set("http.maxQueuedExecutions", "1")
                .set("http.executionQueueWait", "1500ms").start()) {
            String slow = "{\"language\":\"python\",\"code\":\"import time\\ntime.sleep(4)\\nprint('done')\"}";
            CompletableFuture<HttpResponse<String>> running = s.client.sendAsync(post(s, TestServer.ADMIN_KEY, slow),
                    HttpResponse.BodyHandlers.ofString());
            ProtectionIT.waitUntilInFlight(s);
            CompletableFuture<HttpResponse<String>> queued = s.client.sendAsync(post(s, TestServer.EXEC_KEY, PRINT),
                    HttpResponse.BodyHandlers.ofString());
            awaitQueued(s, 1);

            HttpResponse<String> full = s.post("/v1/executions", TestServer.ADMIN_KEY, PRINT);
            assertThat(full.statusCode()).isEqualTo(503);
            assertThat(full.headers().firstValue("Retry-After")).isPresent();
            assertThat(TestServer.json(full).get("detail").asText()).contains("queue is full").contains("http.maxQueuedExecutions");

            HttpResponse<String> waited = queued.get(30, TimeUnit.SECONDS);
            assertThat(waited.statusCode()).isEqualTo(503);
            assertThat(waited.headers().firstValue("Retry-After")).isPresent();
            assertThat(TestServer.json(waited).get("detail").asText()).contains("within 1500ms").contains("http.executionQueueWait");
            assertThat(running.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
    }

    private static HttpRequest post(TestServer s, String key, String json) {
        return s.request("/v1/executions").timeout(java.time.Duration.ofSeconds(60)).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
    }

    /** Waits until {@code n} executions wait for a place (the gauge of the queue). */
    private static void awaitQueued(TestServer s, int n) throws InterruptedException {
        String want = "codeagent_http_executions_queued " + n + ".0";
        String metrics = "";
        for (int i = 0; i < 400; i++) {
            metrics = s.get("/metrics", TestServer.OPS_KEY).body();
            if (metrics.contains(want)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("never " + n + " queued: " + metrics.lines().filter(l -> l.contains("queued")).toList());
    }
}
