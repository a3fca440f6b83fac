package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.domain.solving.CodeGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The repository's example task, byte for byte, through {@code POST /v1/runs} over a real socket:
 * the body a task file holds is the body the API takes, units ({@code "memoryBytes": "256m"}) included.
 * {@code codeagent solve --task-file} reads the same file (SolveCommandTest, TaskFileTest).
 */
@Tag("slow")
class ExampleTaskIT {

    private static final Path EXAMPLES = Path.of("..", "examples");

    private static TestServer server;

    @BeforeAll
    static void start() throws IOException {
        // the recorded replies of the example, played back by attempt: an IndexError first, then the fix
        List<String> replies = Files.readAllLines(EXAMPLES.resolve("middle.replay.jsonl")).stream()
                .filter(l -> !l.isBlank())
                .map(l -> {
                    try {
                        return Views.MAPPER.readTree(l).get("reply").asText();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }).toList();
        CodeGenerator replay = request -> replies.get(request.attemptNumber() - 1);
        server = TestServer.builder().generator(replay).start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theExampleTaskFileIsAcceptedUnchangedAndSolved() throws IOException {
        String body = Files.readString(EXAMPLES.resolve("middle-task.json"));
        assertThat(body).as("the example still uses a unit, which HTTP used to refuse").contains("\"256m\"");

        HttpResponse<String> r = server.post("/v1/runs", TestServer.ADMIN_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        JsonNode started = TestServer.json(r);
        JsonNode limits = started.get("task").get("limits");
        assertThat(limits.get("timeoutMs").asLong()).isEqualTo(5000);
        assertThat(limits.get("cpuTimeMs").asLong()).isEqualTo(5000);
        assertThat(limits.get("memoryBytes").asLong()).isEqualTo(256L * 1024 * 1024);
        assertThat(started.get("task").get("maxAttempts").asInt()).isEqualTo(3);
        String id = started.get("id").asText();

        List<SseReader.Event> events;
        try (SseReader sse = new SseReader(server, id, TestServer.ADMIN_KEY, null)) {
            events = sse.rest();
            assertThat(events).last().satisfies(e -> assertThat(e.name()).isEqualTo("run-finished"));
        }
        String run0 = server.get("/v1/runs/" + id, TestServer.ADMIN_KEY).body();
        // the tests ran in the sandbox's judge process: nothing of that machinery reaches what users see
        for (String seen : java.util.stream.Stream.concat(events.stream().map(SseReader.Event::data), java.util.stream.Stream.of(run0))
                .toList()) {
            assertThat(seen).doesNotContain("codeagent-tests-done", "CODEAGENT_JUDGE", "/.judge", "candidate.py", "judge.py",
                    "codeagent_wire");
        }
        assertThat(events).filteredOn(e -> e.name().equals("executed")).isNotEmpty();
        JsonNode run = TestServer.json(server.get("/v1/runs/" + id, TestServer.ADMIN_KEY));
        assertThat(run.get("status").asText()).as(run.toString()).isEqualTo("SOLVED");
        assertThat(run.get("attempts")).hasSize(2);
        assertThat(run.get("attempts").get(0).get("verdict").get("kind").asText()).isEqualTo("RUNTIME_ERROR");
        assertThat(run.get("attempts").get(1).get("verdict").get("kind").asText()).isEqualTo("ACCEPTED");
    }

    @Test
    void testsInALanguageWithoutAJudgeAreRefusedNamingTheField() {
        HttpResponse<String> r = server.post("/v1/runs", TestServer.ADMIN_KEY,
                "{\"prompt\":\"add\",\"language\":\"javascript\",\"tests\":\"console.assert(add(1, 2) === 3)\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode error = TestServer.json(r).get("errors").get(0);
        assertThat(error.get("field").asText()).isEqualTo("tests");
        assertThat(error.get("message").asText()).contains("python only").contains("expectedOutput");
    }

    @Test
    void theSameUnitsWorkForAnExecutionAndTheNetworkIsNeverGranted() {
        HttpResponse<String> ok = server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"print(1)\",\"limits\":{\"timeoutMs\":\"5s\",\"memoryBytes\":\"128m\"}}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(TestServer.json(ok).get("stdout").asText()).isEqualTo("1\n");

        HttpResponse<String> network = server.post("/v1/runs", TestServer.ADMIN_KEY,
                "{\"prompt\":\"fetch a page\",\"limits\":{\"network\":true}}");
        assertThat(network.statusCode()).as(network.body()).isEqualTo(400);
        JsonNode p = TestServer.json(network);
        assertThat(p.get("type").asText()).isEqualTo("https://codeagent.dev/problems/validation");
        assertThat(p.get("errors").get(0).get("field").asText()).isEqualTo("limits.network");
    }
}
