package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.view.Goldens;
import dev.codeagent.domain.solving.CodeGenerator;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("slow")
class RunsIT {

    /** A fixed marker in the command line of the process a long run starts, to see from outside whether it lives. */
    private static final String MARKER = "codeagent-http-it-" + UUID.randomUUID();

    /** Replies by prompt: "slow N" fails N-1 times before succeeding, 300 ms per reply; "sleep" writes code that sleeps. */
    private static final CodeGenerator GENERATOR = request -> {
        String prompt = request.task().prompt();
        if (prompt.startsWith("sleep")) {
            return "```python\nimport os, sys\nos.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', '"
                    + MARKER + "'])\n```";
        }
        if (prompt.startsWith("slow")) {
            int succeedAt = Integer.parseInt(prompt.substring(5).trim());
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return request.attemptNumber() < succeedAt ? "```python\nprint(undefined_name)\n```" : "```python\nprint('hello')\n```";
        }
        return "```python\nprint('hello')\n```";
    };

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().generator(GENERATOR).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String startRun(TestServer s, String body) {
        HttpResponse<String> r = s.post("/v1/runs", TestServer.ADMIN_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        String id = TestServer.json(r).get("id").asText();
        assertThat(r.headers().firstValue("Location")).contains("/v1/runs/" + id);
        return id;
    }

    @Test
    void solvesAndStreamsEveryEventThenEnds() {
        String id = startRun(server, "{\"prompt\":\"say hello\",\"expectedOutput\":\"hello\\n\",\"maxAttempts\":2}");
        List<SseReader.Event> events;
        try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, null)) {
            assertThat(sse.response.statusCode()).isEqualTo(200);
            assertThat(sse.response.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/event-stream"));
            events = sse.rest();
        }
        assertThat(events).extracting(SseReader.Event::name).containsExactly(
                "run-started", "attempt-started", "code-generated", "executed", "verdict", "run-finished");
        assertThat(events.get(events.size() - 1).data()).contains("\"status\":\"SOLVED\"");
        assertThat(events.get(3).data()).contains("\"stdout\":\"hello\\n\"");

        JsonNode run = TestServer.json(server.get("/v1/runs/" + id, TestServer.ADMIN_KEY));
        assertThat(run.get("status").asText()).isEqualTo("SOLVED");
        assertThat(run.get("attempts")).hasSize(1);
        assertThat(run.get("attempts").get(0).get("verdict").get("kind").asText()).isEqualTo("ACCEPTED");
        assertThat(run.get("task").get("expectedOutput").asText()).isEqualTo("hello\n");

        // a real run has the shape of the golden view the CLI's --json is compared with: same fields, same order
        JsonNode golden = Goldens.read(Goldens.SOLVED_RUN);
        assertThat(names(run)).containsExactlyElementsOf(withLinks(names(golden)));
        assertThat(names(run.get("attempts").get(0))).containsExactlyElementsOf(names(golden.at("/attempts/0")));
        assertThat(names(run.at("/attempts/0/execution"))).containsExactlyElementsOf(names(golden.at("/attempts/0/execution")));
        assertThat(names(run.at("/attempts/0/placement"))).containsExactlyElementsOf(names(golden.at("/attempts/0/placement")));
        JsonNode listed = TestServer.json(server.get("/v1/runs", TestServer.ADMIN_KEY)).get("runs").get(0);
        assertThat(names(listed)).containsExactlyElementsOf(withLinks(names(Goldens.read(Goldens.RUN_SUMMARY))));
    }

    private static List<String> names(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static List<String> withLinks(List<String> viewFields) {
        List<String> sent = new ArrayList<>(viewFields);
        sent.add("links");
        return sent;
    }

    @Test
    void aFinishedRunsStreamAnswers204OnceEverythingHasBeenSeenSoEventSourceStopsReconnecting() {
        String id = startRun(server, "{\"prompt\":\"say hello\",\"expectedOutput\":\"hello\\n\",\"maxAttempts\":2}");
        List<SseReader.Event> events;
        try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, null)) {
            events = sse.rest();
        }
        long last = events.get(events.size() - 1).id();
        assertThat(events.get(events.size() - 1).name()).isEqualTo("run-finished");

        // EventSource reconnects after the stream ends, with the last id it saw: nothing more will come
        try (SseReader again = new SseReader(server, id, TestServer.ADMIN_KEY, last)) {
            assertThat(again.response.statusCode()).isEqualTo(204);
            assertThat(again.rest()).isEmpty();
        }
        // a client that missed the end still gets the replay from where it was
        try (SseReader behind = new SseReader(server, id, TestServer.ADMIN_KEY, events.get(0).id())) {
            assertThat(behind.response.statusCode()).isEqualTo(200);
            assertThat(behind.rest()).extracting(SseReader.Event::id).containsExactlyElementsOf(
                    events.subList(1, events.size()).stream().map(SseReader.Event::id).toList());
        }
    }

    @Test
    void resumesAStreamFromLastEventIdWithoutLossOrDuplicates() {
        String id = startRun(server, "{\"prompt\":\"slow 3\",\"expectedOutput\":\"hello\\n\",\"maxAttempts\":3}");
        List<SseReader.Event> seen = new ArrayList<>();
        // hang up twice mid-run and come back with the last id seen
        for (int leg = 0; leg < 2; leg++) {
            try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, seen.isEmpty() ? null : seen.get(seen.size() - 1).id())) {
                for (int i = 0; i < 4; i++) {
                    seen.add(sse.next());
                }
            }
        }
        try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, seen.get(seen.size() - 1).id())) {
            seen.addAll(sse.rest());
        }
        List<SseReader.Event> all;
        try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, null)) {
            all = sse.rest();
        }
        assertThat(all).hasSize(1 + 3 * 4 + 1);
        assertThat(seen).extracting(SseReader.Event::id).containsExactlyElementsOf(all.stream().map(SseReader.Event::id).toList());
        assertThat(seen).extracting(SseReader.Event::id).isSorted().doesNotHaveDuplicates();
        assertThat(seen).extracting(SseReader.Event::data).containsExactlyElementsOf(all.stream().map(SseReader.Event::data).toList());
        assertThat(all.get(all.size() - 1).data()).contains("SOLVED");
    }

    @Test
    void cancellingALongRunKillsItsExecution() throws Exception {
        String id = startRun(server, "{\"prompt\":\"sleep please\",\"limits\":{\"timeoutMs\":60000},\"maxAttempts\":1}");
        waitFor(() -> processWithMarkerExists(), 15_000, "the run's program to start");

        long t0 = System.nanoTime();
        HttpResponse<String> cancel = server.delete("/v1/runs/" + id, TestServer.ADMIN_KEY);
        assertThat(cancel.statusCode()).isIn(200, 202);
        waitFor(() -> TestServer.json(server.get("/v1/runs/" + id, TestServer.ADMIN_KEY)).get("status").asText().equals("CANCELLED"),
                10_000, "the run to end CANCELLED");
        waitFor(() -> !processWithMarkerExists(), 10_000, "the program to be killed");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(15);

        try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, null)) {
            List<SseReader.Event> events = sse.rest();
            assertThat(events.get(events.size() - 1).name()).isEqualTo("run-finished");
            assertThat(events.get(events.size() - 1).data()).contains("CANCELLED");
        }
        // cancelling again is harmless; a finished run cannot be cancelled
        assertThat(server.delete("/v1/runs/" + id, TestServer.ADMIN_KEY).statusCode()).isEqualTo(200);
        String solved = startRun(server, "{\"prompt\":\"say hello\",\"maxAttempts\":1}");
        waitFor(() -> !TestServer.json(server.get("/v1/runs/" + solved, TestServer.ADMIN_KEY)).get("status").asText().equals("RUNNING"),
                10_000, "the run to end");
        assertThat(server.delete("/v1/runs/" + solved, TestServer.ADMIN_KEY).statusCode()).isEqualTo(409);
    }

    @Test
    void listsRunsNewestFirstInPages() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String id = startRun(server, "{\"prompt\":\"say hello " + i + "\",\"maxAttempts\":1}");
            ids.add(id);
            waitFor(() -> !TestServer.json(server.get("/v1/runs/" + id, TestServer.ADMIN_KEY)).get("status").asText().equals("RUNNING"),
                    10_000, "run " + id);
        }
        HttpResponse<String> page1 = server.get("/v1/runs?limit=2", TestServer.ADMIN_KEY);
        JsonNode p1 = TestServer.json(page1);
        assertThat(p1.get("runs")).hasSize(2);
        assertThat(p1.get("runs").get(0).get("id").asText()).isEqualTo(ids.get(2));
        assertThat(p1.get("runs").get(1).get("id").asText()).isEqualTo(ids.get(1));
        assertThat(page1.headers().firstValue("Link")).hasValueSatisfying(v -> assertThat(v).contains("rel=\"next\""));
        JsonNode p2 = TestServer.json(server.get("/v1/runs?limit=2&before=" + p1.get("next").asText(), TestServer.ADMIN_KEY));
        assertThat(p2.get("runs").get(0).get("id").asText()).isEqualTo(ids.get(0));
    }

    @Test
    void answers404ForUnknownRunsAndRefusesPerRequestGeneratorSettings() {
        assertThat(server.get("/v1/runs/doesnotexist", TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
        assertThat(server.get("/v1/runs/doesnotexist/events", TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
        assertThat(server.delete("/v1/runs/doesnotexist", TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
        HttpResponse<String> r = server.post("/v1/runs", TestServer.ADMIN_KEY, "{\"prompt\":\"x\",\"model\":\"gpt-5\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(r).get("errors").get(0).get("field").asText()).isEqualTo("model");
        HttpResponse<String> blank = server.post("/v1/runs", TestServer.ADMIN_KEY, "{\"prompt\":\"  \",\"maxAttempts\":99}");
        assertThat(blank.statusCode()).isEqualTo(400);
        assertThat(blank.body()).contains("prompt").contains("maxAttempts");
    }

    static boolean processWithMarkerExists() {
        try {
            Process p = new ProcessBuilder("pgrep", "-f", MARKER).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void waitFor(Check check, long millis, String what) {
        long deadline = System.nanoTime() + millis * 1_000_000;
        try {
            while (System.nanoTime() < deadline) {
                if (check.ok()) {
                    return;
                }
                Thread.sleep(50);
            }
        } catch (Exception e) {
            throw new AssertionError("waiting for " + what, e);
        }
        throw new AssertionError("timed out waiting for " + what);
    }
}
