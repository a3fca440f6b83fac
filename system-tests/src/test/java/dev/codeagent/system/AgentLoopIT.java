package dev.codeagent.system;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole loop with real parts: the OpenAI-compatible generator talking to a loopback server that
 * speaks the chat-completions wire format, the process sandbox running the code, the judge, and the
 * SQLite store — composed through the same path the CLI and the HTTP server use.
 */
class AgentLoopIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BUGGY = "Sure:\n```python\ndef middle(xs):\n    return xs[len(xs)]\n```";
    private static final String FIXED = "```python\ndef middle(xs):\n    return xs[len(xs) // 2]\n```";

    @TempDir
    Path dir;

    private HttpServer server;
    private final Deque<Answer> script = new ArrayDeque<>();
    private final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
    private final List<String> authorizations = new CopyOnWriteArrayList<>();

    private record Answer(int status, Map<String, String> headers, String body) {
    }

    @BeforeEach
    void startLlm() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/chat/completions", exchange -> {
            byte[] in = exchange.getRequestBody().readAllBytes();
            bodies.add(JSON.readTree(in));
            authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
            Answer a;
            synchronized (script) {
                a = script.isEmpty() ? new Answer(500, Map.of(), "{\"error\":{\"message\":\"script ran out\"}}") : script.poll();
            }
            byte[] out = a.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            a.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.sendResponseHeaders(a.status(), out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stopLlm() {
        server.stop(0);
    }

    private static String completion(String content) throws IOException {
        return JSON.writeValueAsString(Map.of(
                "id", "chatcmpl-1", "object", "chat.completion", "model", "test-model",
                "choices", List.of(Map.of("index", 0, "finish_reason", "stop",
                        "message", Map.of("role", "assistant", "content", content))),
                "usage", Map.of("prompt_tokens", 10, "completion_tokens", 10, "total_tokens", 20)));
    }

    private CodeAgentConfig config() {
        return new ConfigLoader().load(Optional.empty(), Map.of("CODEAGENT_LLM_API_KEY", "sk-test"), Map.of(
                "sandbox.kind", "process",
                "generator.kind", "openai",
                "generator.openai.baseUrl", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                "generator.openai.model", "test-model",
                "generator.openai.timeout", "10s",
                "solve.retryBackoff", "10ms",
                "store.kind", "sqlite",
                "store.sqlite.path", dir.resolve("runs.db").toString()));
    }

    private static Task middleTask() {
        return new Task("Write middle(xs) that returns the middle element of a list of odd length.", Language.PYTHON,
                "assert middle([1, 2, 3]) == 2\nassert middle([7]) == 7\nassert middle([1, 2, 3, 4, 5]) == 3",
                null, "", ResourceLimits.defaults(), 3);
    }

    @Test
    void theSecondAttemptFixesTheErrorTheFeedbackNamed() throws Exception {
        script.add(new Answer(429, Map.of("Retry-After", "1"), "{\"error\":{\"message\":\"slow down\"}}"));
        script.add(new Answer(200, Map.of(), completion(BUGGY)));
        script.add(new Answer(200, Map.of(), completion(FIXED)));

        String id;
        try (CodeAgent agent = CodeAgent.create(config())) {
            Run run = agent.solveTask().solve(middleTask(), event -> { });
            id = run.id();
            assertThat(run.status()).isEqualTo(RunStatus.SOLVED);
            assertThat(run.attempts()).hasSize(2);
            Verdict first = run.attempts().get(0).verdict();
            assertThat(first.kind()).isEqualTo(Verdict.Kind.RUNTIME_ERROR);
            assertThat(first.error().type()).isEqualTo("IndexError");
            assertThat(first.error().line()).isEqualTo(2);
            assertThat(first.error().sourceLine()).contains("return xs[len(xs)]");
            assertThat(run.attempts().get(1).verdict().isAccepted()).isTrue();
        }

        // 429 then two real completions; the last request carries the conversation with the feedback
        assertThat(bodies).hasSize(3);
        assertThat(authorizations).containsOnly("Bearer sk-test");
        JsonNode messages = bodies.get(2).get("messages");
        assertThat(messages).hasSize(4);
        assertThat(messages.get(0).get("role").asText()).isEqualTo("system");
        assertThat(messages.get(1).get("content").asText()).contains("middle(xs)").contains("assert middle([7]) == 7");
        assertThat(messages.get(2).get("role").asText()).isEqualTo("assistant");
        assertThat(messages.get(2).get("content").asText()).isEqualTo(BUGGY);
        assertThat(messages.get(3).get("role").asText()).isEqualTo("user");
        assertThat(messages.get(3).get("content").asText())
                .contains("IndexError").contains("line 2").contains("return xs[len(xs)]");

        // the store kept the whole run: a new agent over the same file finds it
        try (CodeAgent again = CodeAgent.create(config())) {
            Run stored = again.runLog().find(id).orElseThrow();
            assertThat(stored.status()).isEqualTo(RunStatus.SOLVED);
            assertThat(stored.attempts()).extracting(a -> a.verdict().kind())
                    .containsExactly(Verdict.Kind.RUNTIME_ERROR, Verdict.Kind.ACCEPTED);
            assertThat(stored.attempts().get(0).verdict().error().type()).isEqualTo("IndexError");
            // the judge's own report is kept with the execution: the verdict can be checked against it later
            assertThat(stored.attempts().get(0).execution().judgement().outcome()).isEqualTo(JudgeReport.Outcome.RAISED);
            assertThat(stored.attempts().get(1).execution().judgement().passed()).isTrue();
        }
    }

    @Test
    void aRejectedKeyStopsTheRunAtOnceWithAMessageAboutTheKey() throws Exception {
        script.add(new Answer(401, Map.of(), "{\"error\":{\"message\":\"Incorrect API key provided\"}}"));
        try (CodeAgent agent = CodeAgent.create(config())) {
            Run run = agent.solveTask().solve(middleTask(), event -> { });
            assertThat(run.status()).isEqualTo(RunStatus.ERROR);
            assertThat(run.reason()).containsIgnoringCase("api key");
            assertThat(run.reason()).doesNotContain("sk-test");
            assertThat(run.attempts()).isEmpty();
        }
        assertThat(bodies).hasSize(1);
    }

    @Test
    void theBudgetRunsOutWhenTheModelNeverGetsItRight() throws Exception {
        for (int i = 0; i < 3; i++) {
            script.add(new Answer(200, Map.of(), completion(BUGGY)));
        }
        try (CodeAgent agent = CodeAgent.create(config())) {
            Run run = agent.solveTask().solve(middleTask(), event -> { });
            assertThat(run.status()).isEqualTo(RunStatus.FAILED);
            assertThat(run.attempts()).hasSize(3);
        }
        assertThat(bodies.get(2).get("messages")).hasSize(6);
    }

    /**
     * A compiled language through the whole loop: the first reply does not compile, the feedback names the compiler's
     * line and words, the second compiles and prints what the task expects.
     */
    @Test
    void aCompileErrorIsFedBackWithItsLineAndTheFixedProgramIsAccepted() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/gcc"))
                || System.getenv("CI") != null, "gcc is not installed");
        String broken = "```c\n#include <stdio.h>\nint main(void) {\n    printf(\"%d\\n\", answer);\n    return 0;\n}\n```";
        String fixed = "```c\n#include <stdio.h>\nint main(void) {\n    int n; scanf(\"%d\", &n);\n    printf(\"%d\\n\", n * 2);\n"
                + "    return 0;\n}\n```";
        script.add(new Answer(200, Map.of(), completion(broken)));
        script.add(new Answer(200, Map.of(), completion(fixed)));
        Task task = new Task("Read a number and print twice it.", Language.C, null, "42\n", "21\n", ResourceLimits.defaults(), 3);
        try (CodeAgent agent = CodeAgent.create(config())) {
            Run run = agent.solveTask().solve(task, event -> { });
            assertThat(run.status()).as(run.toString()).isEqualTo(RunStatus.SOLVED);
            Verdict first = run.attempts().get(0).verdict();
            assertThat(first.kind()).isEqualTo(Verdict.Kind.COMPILATION_ERROR);
            assertThat(first.message()).startsWith("main.c:3:").contains("answer");
            assertThat(first.error().line()).isEqualTo(3);
            assertThat(run.attempts().get(0).execution().compile().exitCode()).isNotZero();
            assertThat(run.attempts().get(1).execution().stdout().text()).isEqualTo("42\n");
        }
        JsonNode messages = bodies.get(1).get("messages");
        assertThat(messages.get(0).get("content").asText() + messages.get(1).get("content").asText()).contains("C17");
        assertThat(messages.get(3).get("content").asText()).contains("COMPILATION_ERROR").contains("does not compile")
                .contains("line 3").contains("compiler output").contains("answer");
    }
}
