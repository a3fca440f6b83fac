package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Piston-compatible endpoint driven by the real {@code piston-client} npm package (pinned in
 * src/test/node/package-lock.json, installed with {@code npm ci} under target/), run by the machine's
 * Node.js. The key travels the only way a Piston client can send one: in the server URL, as HTTP Basic.
 */
@Tag("slow")
class PistonClientIT {

    private static final Path NODE = NodeTools.NODE;
    private static TestServer server;
    private static Path work;

    @BeforeAll
    static void install() throws Exception {
        server = TestServer.builder().start();
        work = NodeTools.install("node", "piston-client", "piston-client");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void pistonClientRunsCodeUnchanged() throws Exception {
        String url = "http://piston:" + TestServer.ADMIN_KEY + "@127.0.0.1:" + server.base.getPort();
        String out = run(List.of(NODE.toString(), "piston-check.mjs", url), 120);
        JsonNode r = Views.MAPPER.readTree(out.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow(() ->
                new AssertionError("no JSON from node: " + out)));

        JsonNode runtimes = r.get("runtimes");
        assertThat(runtimes.isArray()).isTrue();
        assertThat(runtimes.findValuesAsText("language")).contains("python");
        JsonNode python = findLanguage(runtimes, "python");
        assertThat(python.get("version").asText()).matches("3\\.\\d+\\.\\d+");
        assertThat(python.get("aliases").toString()).contains("py");

        assertThat(r.get("interleaved").get("run").get("output").asText()).as("run.output in arrival order")
                .isEqualTo("out 0\nerr 0\nout 1\nerr 1\n");
        assertThat(r.get("binary").get("run").get("stdout").asText()).as(r.get("binary").toString()).isEqualTo("00ff800a c3a9fe\n");
        assertThat(r.get("hello").get("language").asText()).isEqualTo("python");
        assertThat(r.get("hello").get("version").asText()).isEqualTo(python.get("version").asText());
        assertThat(r.get("hello").get("run").get("stdout").asText()).isEqualTo("hi from stdin\n");
        assertThat(r.get("hello").get("run").get("code").asInt()).isZero();
        assertThat(r.get("hello").get("run").get("signal").isNull()).isTrue();
        assertThat(r.get("hello").get("run").get("output").asText()).isEqualTo("hi from stdin\n");

        // piston-client sends args ["1", "2", "3"] unless told otherwise
        assertThat(r.get("argv").get("run").get("stdout").asText()).isEqualTo("['1', '2', '3']\n");
        if (runtimes.findValuesAsText("language").contains("javascript")) {
            assertThat(r.get("js").get("run").get("stdout").asText()).isEqualTo("42\n");
        }
        JsonNode failure = r.get("failure").get("run");
        assertThat(failure.get("code").asInt()).isEqualTo(1);
        assertThat(failure.get("stderr").asText()).contains("ValueError: boom");
        assertThat(failure.get("status").asText()).isEqualTo("RE");

        JsonNode timeout = r.get("timeout").get("run");
        assertThat(timeout.get("status").asText()).isEqualTo("TO");
        assertThat(timeout.get("signal").asText()).isEqualTo("SIGKILL");

        assertThat(r.get("files").get("run").get("stdout").asText()).isEqualTo("from a file\n");
        assertThat(r.get("range").get("run").get("stdout").asText()).isEqualTo("in range\n");
        assertThat(r.get("either").get("run").get("stdout").asText()).isEqualTo("either\n");
        assertThat(r.get("tooNew").get("message").asText()).isEqualTo("python-^4 runtime is unknown");
        // files[0] runs under its own name, and a second file may be called main.py
        assertThat(r.get("named").get("run").get("stdout").asText()).endsWith("solution.py\n");
        assertThat(r.get("unknown").get("message").asText()).isEqualTo("cobol-* runtime is unknown");
        if (runtimes.findValuesAsText("language").containsAll(List.of("c", "c++", "java"))) {
            compiledLanguages(r, runtimes);
        } else {
            assertThat(System.getenv("CI")).as("CI installs the toolchains: " + runtimes).isNull();
        }
        assertThat(r.get("anonymous").get("status").asInt()).isEqualTo(401);
        assertThat(r.get("anonymous").get("message").asText()).contains("API key");
    }

    /** Piston's shape for a compiled language: compile, then run; on a compile error, run is the compile stage again. */
    private static void compiledLanguages(JsonNode r, JsonNode runtimes) {
        assertThat(findLanguage(runtimes, "c++").get("aliases").toString()).contains("cpp").contains("g++");
        assertThat(findLanguage(runtimes, "c").get("version").asText()).matches("\\d+\\.\\d+\\.\\d+");
        JsonNode c = r.get("c");
        assertThat(c.get("compile").get("code").asInt()).as(c.toString()).isZero();
        assertThat(c.get("run").get("stdout").asText()).isEqualTo("1 4\n");
        assertThat(c.get("run").get("code").asInt()).isEqualTo(3);
        assertThat(r.get("cpp").get("run").get("stdout").asText()).as(r.get("cpp").toString()).isEqualTo("42\n");
        assertThat(r.get("java").get("run").get("stdout").asText()).as(r.get("java").toString()).isEqualTo("2\n");

        JsonNode broken = r.get("brokenC");
        assertThat(broken.get("compile").get("code").asInt()).as(broken.toString()).isEqualTo(1);
        assertThat(broken.get("compile").get("stderr").asText()).contains("main.c:2:10: error:");
        assertThat(broken.get("run")).as("Piston answers run as the compile stage").isEqualTo(broken.get("compile"));

        JsonNode slow = r.get("slowCompile").get("compile");
        assertThat(slow.get("status").asText()).as(slow.toString()).isEqualTo("TO");
        assertThat(slow.get("wall_time").asLong()).isLessThan(6_000);
    }

    @Test
    void queuesBusyRequestsSoEveryPistonCallGetsItsRun() throws Exception {
        // 10 calls at once against 2 places: Piston queues jobs, and piston-client reads run from every answer
        try (TestServer busy = TestServer.builder().set("sandbox.maxConcurrent", "2").set("http.maxConcurrentExecutions", "2")
                .start()) {
            String out = run(List.of(NODE.toString(), "piston-queue.mjs", url(busy), "10"), 120);
            JsonNode answers = lastJson(out);
            assertThat(answers.size()).isEqualTo(10);
            for (int i = 0; i < 10; i++) {
                JsonNode run = answers.get(i).get("run");
                assertThat(run).as("answer %d: %s", i, answers.get(i)).isNotNull();
                assertThat(run.get("stdout").asText()).isEqualTo(i + "\n");
                assertThat(run.get("code").asInt()).isZero();
            }
            assertThat(busy.get("/metrics", TestServer.OPS_KEY).body())
                    .doesNotContain("codeagent_http_rejected_total{reason=\"overloaded\"}");
        }
    }

    @Test
    void refusesWithPistonsMessageOnlyWhenTheQueueIsFullOrTheWaitRanOut() throws Exception {
        try (TestServer busy = TestServer.builder().set("sandbox.maxConcurrent", "1").set("http.maxConcurrentExecutions", "1")
                .set("http.maxQueuedExecutions", "1").set("http.executionQueueWait", "1500ms").start()) {
            CompletableFuture<HttpResponse<String>> running = pistonAsync(busy, "import time\\ntime.sleep(4)\\nprint('slept')");
            ProtectionIT.waitUntilInFlight(busy);
            CompletableFuture<HttpResponse<String>> queued = pistonAsync(busy, "print('queued')");
            waitForGauge(busy, "codeagent_http_executions_queued", 1);

            HttpResponse<String> full = pistonAsync(busy, "print('one too many')").get(10, TimeUnit.SECONDS);
            assertThat(full.statusCode()).isEqualTo(503);
            assertThat(full.headers().firstValue("Retry-After")).isPresent();
            assertThat(TestServer.json(full).get("message").asText()).contains("queue is full").contains("http.maxQueuedExecutions");

            HttpResponse<String> waited = queued.get(10, TimeUnit.SECONDS);
            assertThat(waited.statusCode()).isEqualTo(503);
            assertThat(TestServer.json(waited).get("message").asText()).contains("within 1500ms").contains("http.executionQueueWait");

            HttpResponse<String> first = running.get(20, TimeUnit.SECONDS);
            assertThat(first.statusCode()).isEqualTo(200);
            assertThat(TestServer.json(first).get("run").get("stdout").asText()).isEqualTo("slept\n");
        }
    }

    private static CompletableFuture<HttpResponse<String>> pistonAsync(TestServer s, String code) {
        HttpRequest r = s.request("/api/v2/execute").header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"python\",\"version\":\"*\",\"files\":[{\"content\":\""
                        + code + "\"}]}"))
                .build();
        return s.client.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    private static void waitForGauge(TestServer s, String gauge, int value) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (s.get("/metrics", TestServer.OPS_KEY).body().lines().anyMatch(l -> l.startsWith(gauge) && l.endsWith(" " + value + ".0"))) {
                return;
            }
            Thread.sleep(25);
        }
        throw new AssertionError(gauge + " never reached " + value);
    }

    private static String url(TestServer s) {
        return "http://piston:" + TestServer.ADMIN_KEY + "@127.0.0.1:" + s.base.getPort();
    }

    private static JsonNode lastJson(String out) throws IOException {
        return Views.MAPPER.readTree(out.lines().filter(l -> l.startsWith("{") || l.startsWith("[")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no JSON from node: " + out)));
    }

    private static JsonNode findLanguage(JsonNode runtimes, String language) {
        for (JsonNode n : runtimes) {
            if (n.get("language").asText().equals(language)) {
                return n;
            }
        }
        throw new AssertionError("no " + language + " in " + runtimes);
    }

    private static String run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        return NodeTools.run(work, command, timeoutSeconds);
    }
}
