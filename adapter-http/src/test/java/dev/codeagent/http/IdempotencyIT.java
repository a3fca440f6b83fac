package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code Idempotency-Key} on {@code POST /v1/executions} and {@code POST /v1/runs}, as a real client uses it: it times
 * out, sends the same request with the same key again, and gets the first request's answer without anything being
 * started again.
 */
@Tag("slow")
class IdempotencyIT {

    /** Sleeps past the client's first timeout, then prints a number no second run would print again. */
    private static final String SLOW_RANDOM = "{\"language\":\"python\",\"code\":\"import time, random\\ntime.sleep(1.5)\\n"
            + "print(random.random())\"}";

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
    void aClientThatTimesOutAndRetriesGetsTheFirstAnswerAndNothingRunsTwice() throws Exception {
        String key = UUID.randomUUID().toString();
        long before = executionsCounted();
        assertThatThrownBy(() -> server.client.send(execution(key, SLOW_RANDOM, TestServer.ADMIN_KEY, Duration.ofMillis(300)),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(HttpTimeoutException.class);

        // the retry comes while the first is still running: it waits for the first one's answer
        HttpResponse<String> retry = server.client.send(execution(key, SLOW_RANDOM, TestServer.ADMIN_KEY, Duration.ofSeconds(30)),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        String printed = TestServer.json(retry).get("stdout").asText();
        assertThat(printed).matches("0\\.\\d+\\n");

        // and once it has ended, the same: the same number, no new execution
        HttpResponse<String> again = server.client.send(execution(key, SLOW_RANDOM, TestServer.ADMIN_KEY, Duration.ofSeconds(30)),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(TestServer.json(again).get("stdout").asText()).isEqualTo(printed);
        assertThat(executionsCounted() - before).as("executions run").isEqualTo(1);

        // the same body written another way (fields reordered, spaces) is the same request
        String reordered = "{ \"code\": \"import time, random\\ntime.sleep(1.5)\\nprint(random.random())\", \"language\": \"python\" }";
        HttpResponse<String> sameRequest = server.send(execution(key, reordered, TestServer.ADMIN_KEY, Duration.ofSeconds(30)));
        assertThat(TestServer.json(sameRequest).get("stdout").asText()).isEqualTo(printed);
    }

    @Test
    void theSameKeyWithAnotherBodyIs422AndRunsNothing() {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = server.send(execution(key, "{\"language\":\"python\",\"code\":\"print(1)\"}",
                TestServer.ADMIN_KEY, Duration.ofSeconds(30)));
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        long before = executionsCounted();
        HttpResponse<String> other = server.send(execution(key, "{\"language\":\"python\",\"code\":\"print(2)\"}",
                TestServer.ADMIN_KEY, Duration.ofSeconds(30)));
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        JsonNode problem = TestServer.json(other);
        assertThat(problem.get("type").asText()).isEqualTo("https://codeagent.dev/problems/idempotency-key-reused");
        assertThat(problem.get("detail").asText()).contains(key).contains("another request");
        assertThat(executionsCounted()).isEqualTo(before);
    }

    @Test
    void keysBelongToTheApiKeyThatSentThem() {
        String key = UUID.randomUUID().toString();
        String body = "{\"language\":\"python\",\"code\":\"import random\\nprint(random.random())\"}";
        HttpResponse<String> mine = server.send(execution(key, body, TestServer.ADMIN_KEY, Duration.ofSeconds(30)));
        HttpResponse<String> theirs = server.send(execution(key, body, TestServer.EXEC_KEY, Duration.ofSeconds(30)));
        assertThat(theirs.statusCode()).isEqualTo(200);
        assertThat(theirs.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(TestServer.json(theirs).get("stdout").asText()).isNotEqualTo(TestServer.json(mine).get("stdout").asText());
    }

    @Test
    void aRetriedRunStartIsTheSameRun() {
        String key = UUID.randomUUID().toString();
        String task = "{\"prompt\":\"print hello\",\"language\":\"python\",\"expectedOutput\":\"hello\\n\"}";
        HttpResponse<String> first = server.send(run(key, task));
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        HttpResponse<String> retry = server.send(run(key, task));
        assertThat(retry.statusCode()).isEqualTo(202);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        String id = TestServer.json(first).get("id").asText();
        assertThat(TestServer.json(retry).get("id").asText()).isEqualTo(id);
        assertThat(retry.headers().firstValue("Location")).hasValue("/v1/runs/" + id);
        // one run started, not two: the key's runs hold it once
        long runsWithThePrompt = 0;
        for (JsonNode r : TestServer.json(server.get("/v1/runs?limit=100", TestServer.ADMIN_KEY)).get("runs")) {
            if (r.get("id").asText().equals(id)) {
                runsWithThePrompt++;
            }
        }
        assertThat(runsWithThePrompt).isEqualTo(1);
        HttpResponse<String> another = server.send(run(key, task.replace("hello", "bye")));
        assertThat(another.statusCode()).isEqualTo(422);
    }

    @Test
    void aRetriedBatchIsTheSameBatch() {
        String key = UUID.randomUUID().toString();
        String batch = "{\"submissions\":[{\"language\":\"python\",\"code\":\"print(1)\"},{\"language\":\"python\",\"code\":\"print(2)\"}]}";
        HttpRequest.Builder b = server.request("/v1/executions/batch").header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                .header("Content-Type", "application/json").header("Idempotency-Key", key);
        HttpResponse<String> first = server.send(b.POST(HttpRequest.BodyPublishers.ofString(batch)).build());
        HttpResponse<String> retry = server.send(b.POST(HttpRequest.BodyPublishers.ofString(batch)).build());
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @Test
    void aKeyThatCannotBeAKeyIsA400NamingTheHeader() {
        HttpResponse<String> r = server.send(execution("x".repeat(300), "{\"language\":\"python\",\"code\":\"print(1)\"}",
                TestServer.ADMIN_KEY, Duration.ofSeconds(30)));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(r).get("errors").get(0).get("field").asText()).isEqualTo("Idempotency-Key");
    }

    private static HttpRequest execution(String idempotencyKey, String body, String apiKey, Duration timeout) {
        return server.request("/v1/executions").timeout(timeout).header("Authorization", "Bearer " + apiKey)
                .header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    private static HttpRequest run(String idempotencyKey, String body) {
        return server.request("/v1/runs").header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                .header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }

    /** Executions through {@code /v1/executions} so far, all outcomes (the metrics' count). */
    private static long executionsCounted() {
        String metrics = server.get("/metrics", TestServer.OPS_KEY).body();
        Matcher m = Pattern.compile("codeagent_executions_seconds_count\\{outcome=\"[A-Z_]+\",via=\"api\"} (\\d+)").matcher(metrics);
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(1));
        }
        return n;
    }
}
