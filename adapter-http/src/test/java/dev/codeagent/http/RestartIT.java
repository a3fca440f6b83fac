package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.domain.solving.CodeGenerator;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs outlive the server in the SQLite store: after a graceful stop and after a crash. */
@Tag("slow")
class RestartIT {

    private static final String MARKER = "codeagent-restart-it-" + UUID.randomUUID();
    private static final String SLEEPER = "```python\nimport os, sys\nos.execv(sys.executable, [sys.executable, '-c', "
            + "'import time; time.sleep(60)', '" + MARKER + "'])\n```";

    @TempDir
    Path dir;

    private TestServer.Builder server(CodeGenerator generator) {
        return TestServer.builder().generator(generator)
                .set("store.kind", "sqlite")
                .set("store.sqlite.path", dir.resolve("runs.db").toString())
                .set("http.shutdownGrace", "500ms");
    }

    @Test
    void aGracefulStopEndsRunsInFlightAsInterruptedAndARestartStillServesThem() {
        CodeGenerator generator = request -> request.task().prompt().equals("sleep") ? SLEEPER : "```python\nprint('hello')\n```";
        String solved;
        String interrupted;
        try (TestServer a = server(generator).start()) {
            solved = RunsIT.startRun(a, "{\"prompt\":\"say hello\",\"maxAttempts\":1}");
            RunsIT.waitFor(() -> status(a, solved).equals("SOLVED"), 10_000, "the first run to be solved");
            interrupted = RunsIT.startRun(a, "{\"prompt\":\"sleep\",\"maxAttempts\":1}");
            RunsIT.waitFor(RestartIT::sleeperRuns, 15_000, "the second run's program to start");
        }
        assertThat(sleeperRuns()).as("the shutdown killed the run's program").isFalse();

        try (TestServer b = server(generator).start()) {
            JsonNode first = TestServer.json(b.get("/v1/runs/" + solved, TestServer.ADMIN_KEY));
            assertThat(first.get("status").asText()).isEqualTo("SOLVED");
            assertThat(first.get("attempts").get(0).get("execution").get("stdout").asText()).isEqualTo("hello\n");

            JsonNode second = TestServer.json(b.get("/v1/runs/" + interrupted, TestServer.ADMIN_KEY));
            assertThat(second.get("status").asText()).isEqualTo("ERROR");
            assertThat(second.get("reason").asText()).contains("interrupted");

            // events of runs from before the restart are re-created, with the ids they had, and resumable
            List<SseReader.Event> all;
            try (SseReader sse = new SseReader(b, solved, TestServer.ADMIN_KEY, null)) {
                all = sse.rest();
            }
            assertThat(all).extracting(SseReader.Event::name).containsExactly(
                    "run-started", "attempt-started", "code-generated", "executed", "verdict", "run-finished");
            assertThat(all).extracting(SseReader.Event::id).containsExactly(1L, 11L, 12L, 13L, 14L, 1000L);
            try (SseReader sse = new SseReader(b, solved, TestServer.ADMIN_KEY, 12L)) {
                assertThat(sse.rest()).extracting(SseReader.Event::id).containsExactly(13L, 14L, 1000L);
            }
        }
    }

    @Test
    void aRunCutOffByACrashIsMarkedErrorAtTheNextStart() throws Exception {
        Path replies = dir.resolve("replies.jsonl");
        Files.writeString(replies, Views.MAPPER.createObjectNode().put("reply", SLEEPER).toString() + "\n");
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, String.join("\n",
                "sandbox: {kind: process}",
                "generator: {kind: replay, replay: {file: '" + replies + "'}}",
                "store: {kind: sqlite, sqlite: {path: '" + dir.resolve("runs.db") + "'}}",
                "http:",
                "  port: 0",
                "  auth: {keys: ['admin:" + ApiKeys.sha256Hex(TestServer.ADMIN_KEY) + "']}",
                ""));
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlogback.configurationFile=" + Path.of("target", "classes", "logback.xml").toAbsolutePath(),
                "-cp", System.getProperty("java.class.path"), HttpServerMain.class.getName(), "serve", "--config", config.toString())
                .redirectErrorStream(true).start();
        String id;
        try {
            URI base = awaitListening(child);
            HttpClient client = HttpClient.newHttpClient();
            HttpResponse<String> started = client.send(HttpRequest.newBuilder(base.resolve("/v1/runs"))
                    .header("Authorization", "Bearer " + TestServer.ADMIN_KEY).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"sleep\",\"maxAttempts\":1}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
            id = Views.MAPPER.readTree(started.body()).get("id").asText();
            RunsIT.waitFor(RestartIT::sleeperRuns, 15_000, "the run's program to start");
        } finally {
            child.destroyForcibly();
            child.waitFor(10, TimeUnit.SECONDS);
            killSleepers();
        }

        try (TestServer b = server(request -> "```python\nprint(1)\n```").start()) {
            JsonNode run = TestServer.json(b.get("/v1/runs/" + id, TestServer.ADMIN_KEY));
            assertThat(run.get("status").asText()).isEqualTo("ERROR");
            assertThat(run.get("reason").asText()).isEqualTo(RunService.INTERRUPTED);
            assertThat(run.get("endedAt").isNull()).isFalse();
        }
    }

    /** The URL the child server logs once it listens. */
    private static URI awaitListening(Process child) throws Exception {
        Pattern listening = Pattern.compile("listening on (http://\\S+)");
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<URI> found = CompletableFuture.supplyAsync(() -> {
            StringBuilder seen = new StringBuilder();
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    seen.append(line).append('\n');
                    Matcher m = listening.matcher(line);
                    if (m.find()) {
                        URI uri = URI.create(m.group(1));
                        // keep draining so the child never blocks on a full pipe
                        Thread drain = new Thread(() -> {
                            try {
                                while (out.readLine() != null) {
                                    continue;
                                }
                            } catch (IOException e) {
                                return;
                            }
                        });
                        drain.setDaemon(true);
                        drain.start();
                        return uri;
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException(seen.toString(), e);
            }
            throw new IllegalStateException("the server exited before listening:\n" + seen);
        });
        return found.get(60, TimeUnit.SECONDS);
    }

    private static String status(TestServer s, String id) {
        return TestServer.json(s.get("/v1/runs/" + id, TestServer.ADMIN_KEY)).get("status").asText();
    }

    static boolean sleeperRuns() {
        return !sleeperPids().isEmpty();
    }

    private static List<Long> sleeperPids() {
        try {
            Process p = new ProcessBuilder("pgrep", "-f", MARKER).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(5, TimeUnit.SECONDS);
            return out.lines().filter(l -> !l.isBlank()).map(String::trim).map(Long::parseLong).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** A killed server cannot clean up after its sandbox: remove this test's own sleeper by pid, if it survived. */
    private static void killSleepers() {
        for (long pid : sleeperPids()) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
