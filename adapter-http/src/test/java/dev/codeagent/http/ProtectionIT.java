package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.config.ConfigException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("slow")
class ProtectionIT {

    private static final String PRINT = "{\"language\":\"python\",\"code\":\"print(1)\"}";

    @Test
    void asksForAKeyAndRefusesUnknownOnesAndKeysOutsideTheirGroups() {
        try (TestServer s = TestServer.builder().start()) {
            HttpResponse<String> none = s.post("/v1/executions", null, PRINT);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
            assertThat(TestServer.json(none).get("type").asText()).isEqualTo("https://codeagent.dev/problems/unauthorized");

            assertThat(s.post("/v1/executions", "not-a-key", PRINT).statusCode()).isEqualTo(401);
            assertThat(s.get("/v1/runs", "not-a-key").statusCode()).isEqualTo(401);
            assertThat(s.get("/metrics", null).statusCode()).isEqualTo(401);

            HttpResponse<String> forbidden = s.get("/v1/runs", TestServer.EXEC_KEY);
            assertThat(forbidden.statusCode()).isEqualTo(403);
            assertThat(TestServer.json(forbidden).get("detail").asText()).contains("exec").contains("runs");
            assertThat(s.get("/api/v2/runtimes", TestServer.EXEC_KEY).statusCode()).isEqualTo(403);

            assertThat(s.post("/v1/executions", TestServer.EXEC_KEY, PRINT).statusCode()).isEqualTo(200);
            assertThat(s.get("/v1/runs", TestServer.ADMIN_KEY).statusCode()).isEqualTo(200);
            assertThat(s.get("/metrics", TestServer.OPS_KEY).statusCode()).isEqualTo(200);

            String basic = Base64.getEncoder().encodeToString(("piston:" + TestServer.ADMIN_KEY).getBytes(StandardCharsets.UTF_8));
            HttpResponse<String> viaBasic = s.send(s.request("/v1/runs").header("Authorization", "Basic " + basic).GET().build());
            assertThat(viaBasic.statusCode()).isEqualTo(200);

            // liveness probes need no key
            assertThat(s.get("/health", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void letsOnlyOperatorsAndScrapersReadTheMetricsAndOnlyOperatorsTheHealthDetails() {
        String scraper = "prometheus-scraper-test-key-1357924680";
        try (TestServer s = TestServer.builder().set("http.auth.keys", "app:" + ApiKeys.sha256Hex(TestServer.ADMIN_KEY)
                + ",prom:" + ApiKeys.sha256Hex(scraper) + ":metrics,ops:" + ApiKeys.sha256Hex(TestServer.OPS_KEY) + ":admin")
                .start()) {
            // a key naming no groups may use every endpoint group but this one: the counters are every key's together
            HttpResponse<String> app = s.get("/metrics", TestServer.ADMIN_KEY);
            assertThat(app.statusCode()).isEqualTo(403);
            assertThat(TestServer.json(app).get("detail").asText()).contains("'app'", "admin", "metrics");
            assertThat(s.get("/v1/runs", TestServer.ADMIN_KEY).statusCode()).isEqualTo(200);
            assertThat(s.get("/metrics", scraper).statusCode()).isEqualTo(200);
            assertThat(s.get("/v1/runs", scraper).statusCode()).as("the scraper's key opens nothing else").isEqualTo(403);
            assertThat(s.get("/metrics", TestServer.OPS_KEY).body()).contains("codeagent_runs_active");

            for (String key : new String[] {null, TestServer.ADMIN_KEY, scraper}) {
                com.fasterxml.jackson.databind.JsonNode h = TestServer.json(s.get("/health", key));
                assertThat(h.get("ready").asBoolean()).isTrue();
                assertThat(h.has("runs")).as("runs at /health for key " + key).isFalse();
                assertThat(h.get("sandbox").has("running")).as("sandbox.running for key " + key).isFalse();
            }
            com.fasterxml.jackson.databind.JsonNode ops = TestServer.json(s.get("/health", TestServer.OPS_KEY));
            assertThat(ops.get("runs").get("active").asInt()).isZero();
            assertThat(ops.get("sandbox").get("running").isInt()).isTrue();
        }
    }

    @Test
    void limitsEachKeyAndSaysWhenToComeBack() {
        try (TestServer s = TestServer.builder().set("http.rateLimitPerMinute", "3").start()) {
            for (int i = 0; i < 3; i++) {
                assertThat(s.get("/v1/runs", TestServer.ADMIN_KEY).statusCode()).isEqualTo(200);
            }
            HttpResponse<String> limited = s.get("/v1/runs", TestServer.ADMIN_KEY);
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.headers().firstValue("Retry-After")).hasValueSatisfying(v ->
                    assertThat(Integer.parseInt(v)).isBetween(1, 60));
            assertThat(TestServer.json(limited).get("type").asText()).isEqualTo("https://codeagent.dev/problems/rate-limited");
            // another key has its own budget
            assertThat(s.post("/v1/executions", TestServer.EXEC_KEY, PRINT).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void slowsDownGuessingOfKeys() {
        try (TestServer s = TestServer.builder().start()) {
            int status = 0;
            for (int i = 0; i < 40 && status != 429; i++) {
                status = s.get("/v1/runs", "guess-" + i).statusCode();
            }
            assertThat(status).isEqualTo(429);
        }
    }

    @Test
    void refusesOverloadAtOnceWhenQueueingIsTurnedOff() throws Exception {
        try (TestServer s = TestServer.builder().set("http.maxConcurrentExecutions", "1").set("http.maxQueuedExecutions", "0")
                .start()) {
            HttpRequest slow = s.request("/v1/executions").header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"python\",\"code\":\"import time\\ntime.sleep(2)\\nprint('done')\"}"))
                    .build();
            CompletableFuture<HttpResponse<String>> busy = s.client.sendAsync(slow, HttpResponse.BodyHandlers.ofString());
            waitUntilInFlight(s);

            long t0 = System.nanoTime();
            HttpResponse<String> refused = s.post("/v1/executions", TestServer.ADMIN_KEY, PRINT);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            assertThat(TestServer.json(refused).get("type").asText()).isEqualTo("https://codeagent.dev/problems/overloaded");
            assertThat(millis).as("refused fast").isLessThan(500);

            HttpResponse<String> first = busy.get(20, TimeUnit.SECONDS);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(TestServer.json(first).get("stdout").asText()).isEqualTo("done\n");
            assertThat(s.post("/v1/executions", TestServer.ADMIN_KEY, PRINT).statusCode()).isEqualTo(200);
            assertThat(s.get("/metrics", TestServer.OPS_KEY).body()).contains("codeagent_http_rejected_total{reason=\"overloaded\"}");
        }
    }

    @Test
    void anExecutionLongerThanTheIdleTimeoutStillGetsItsAnswer() {
        try (TestServer s = TestServer.builder().set("http.requestTimeout", "1s").start()) {
            HttpResponse<String> r = s.post("/v1/executions", TestServer.ADMIN_KEY,
                    "{\"language\":\"python\",\"code\":\"import time\\ntime.sleep(2.5)\\nprint('late')\"}");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(TestServer.json(r).get("stdout").asText()).isEqualTo("late\n");
        }
    }

    @Test
    void refusesToStartWithAuthOnAndNoKeys() {
        TestServer.Builder b = TestServer.builder().set("http.auth.keys", "");
        assertThatThrownBy(b::start).isInstanceOf(ConfigException.class)
                .hasMessageContaining("http.auth.keys is empty")
                .hasMessageContaining("http.auth.enabled=false");
    }

    @Test
    void saysSoWhenThePortIsTaken() {
        try (TestServer first = TestServer.builder().start()) {
            TestServer.Builder second = TestServer.builder().set("http.port", Integer.toString(first.base.getPort()));
            assertThatThrownBy(second::start).isInstanceOf(ConfigException.class)
                    .hasMessage("cannot listen on 127.0.0.1:" + first.base.getPort() + ": the port is in use or not allowed (http.port)");
            assertThat(first.get("/health", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void servesWithoutKeysOnlyWhenAuthIsTurnedOffExplicitly() {
        try (TestServer s = TestServer.builder().set("http.auth.keys", "").set("http.auth.enabled", "false").start()) {
            assertThat(s.post("/v1/executions", null, PRINT).statusCode()).isEqualTo(200);
        }
    }

    static void waitUntilInFlight(TestServer s) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            String metrics = s.get("/metrics", TestServer.OPS_KEY).body();
            if (metrics.contains("codeagent_http_executions_inflight 1.0")) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError("the execution never started");
    }
}
