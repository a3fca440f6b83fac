package dev.codeagent.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import dev.codeagent.domain.solving.GeneratorException.Kind;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.generator.LoopbackLlmServer.Recorded;
import dev.codeagent.generator.LoopbackLlmServer.Scripted;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class OpenAiCompatibleGeneratorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "sk-test-0123456789abcdef";
    private static final String REPLY = "```python\ndef add(a, b):\n    return a + b\n```";
    private static final Task ADD = new Task("Write add(a, b) returning the sum.", Language.PYTHON,
            "assert add(1, 2) == 3\nassert add(-1, 1) == 0\n", null, "", ResourceLimits.defaults(), 3);

    private final LoopbackLlmServer server = new LoopbackLlmServer();

    @AfterEach
    void stopServer() {
        server.close();
    }

    private OpenAiConfig config(String apiKey, Duration timeout) {
        return new OpenAiConfig(server.baseUrl(), "test-model", apiKey, timeout, 0.2, 512);
    }

    private OpenAiCompatibleGenerator generator() {
        return new OpenAiCompatibleGenerator(config(KEY, Duration.ofSeconds(5)));
    }

    private static GenerationRequest first(Task task) {
        return new GenerationRequest(task, List.of());
    }

    private GeneratorException failureOn(Scripted answer) {
        server.enqueue(answer);
        return catchThrowableOfType(GeneratorException.class, () -> generator().generate(first(ADD)));
    }

    @Test
    void postsTheConversationInOrderWithModelAndLimits() throws IOException {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)));
        GenerationRequest third = new GenerationRequest(ADD, List.of(
                new GenerationRequest.Turn("```python\ndef add(a, b): return a - b\n```", "WRONG_ANSWER: assert add(1, 2) == 3"),
                new GenerationRequest.Turn("no code, sorry", "No code block found in your reply.")));

        String reply = generator().generate(third);

        assertThat(reply).isEqualTo(REPLY);
        Recorded sent = server.requests().get(0);
        assertThat(sent.method()).isEqualTo("POST");
        assertThat(sent.path()).isEqualTo("/v1/chat/completions");
        assertThat(sent.header("Content-Type")).isEqualTo("application/json");
        assertThat(sent.header("Authorization")).isEqualTo("Bearer " + KEY);
        JsonNode body = JSON.readTree(sent.body());
        assertThat(body.get("model").asText()).isEqualTo("test-model");
        assertThat(body.get("max_tokens").asInt()).isEqualTo(512);
        assertThat(body.get("temperature").asDouble()).isEqualTo(0.2);
        assertThat(body.get("stream").asBoolean()).isFalse();
        List<String> roles = new ArrayList<>();
        body.get("messages").forEach(m -> roles.add(m.get("role").asText()));
        assertThat(roles).containsExactly("system", "user", "assistant", "user", "assistant", "user");
        JsonNode messages = body.get("messages");
        assertThat(messages.get(0).get("content").asText()).contains("expert Python programmer", "ONE fenced code block", "```python");
        assertThat(messages.get(1).get("content").asText())
                .contains("Write add(a, b) returning the sum.", "tests will be run against your code", "assert add(-1, 1) == 0");
        assertThat(messages.get(2).get("content").asText()).isEqualTo("```python\ndef add(a, b): return a - b\n```");
        assertThat(messages.get(3).get("content").asText()).isEqualTo("WRONG_ANSWER: assert add(1, 2) == 3");
        assertThat(messages.get(4).get("content").asText()).isEqualTo("no code, sorry");
        assertThat(messages.get(5).get("content").asText()).isEqualTo("No code block found in your reply.");
    }

    @Test
    void showsExpectedOutputAndStdinInTheTaskMessage() throws IOException {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)));
        Task echo = new Task("Print each input line upper-cased.", Language.JAVASCRIPT, null, "HELLO\nWORLD\n", "hello\nworld\n",
                ResourceLimits.defaults(), 2);

        generator().generate(first(echo));

        JsonNode messages = JSON.readTree(server.requests().get(0).body()).get("messages");
        assertThat(messages).hasSize(2);
        assertThat(messages.get(0).get("content").asText()).contains("JavaScript", "Node.js", "```javascript");
        assertThat(messages.get(1).get("content").asText())
                .contains("must print exactly this", "HELLO\nWORLD", "standard input", "hello\nworld")
                .doesNotContain("tests");
    }

    @Test
    void sendsNoAuthorizationHeaderWithoutAnApiKey() {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)));

        new OpenAiCompatibleGenerator(config(null, Duration.ofSeconds(5))).generate(first(ADD));

        assertThat(server.requests().get(0).headers()).doesNotContainKey("authorization");
    }

    @Test
    void stripsATrailingSlashFromTheBaseUrl() {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)));
        OpenAiConfig slashed = new OpenAiConfig(server.baseUrl() + "/", "test-model", null,
                Duration.ofSeconds(5), 0.0, 64);
        OpenAiCompatibleGenerator generator = new OpenAiCompatibleGenerator(slashed);

        generator.generate(first(ADD));

        assertThat(server.requests().get(0).path()).isEqualTo("/v1/chat/completions");
        assertThat(generator.describe()).isEqualTo("openai:test-model@" + server.baseUrl());
    }

    @Test
    void rateLimitIsTransientWithTheServersRetryAfterThenTheNextCallSucceeds() {
        server.enqueue(
                Scripted.of(429, "{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\","
                        + "\"code\":\"rate_limit_exceeded\"}}").header("Retry-After", "7"),
                Scripted.of(200, LoopbackLlmServer.completion(REPLY)));
        OpenAiCompatibleGenerator generator = generator();

        GeneratorException limited = catchThrowableOfType(GeneratorException.class, () -> generator.generate(first(ADD)));
        String reply = generator.generate(first(ADD));

        assertThat(limited.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(limited.retryAfter()).isEqualTo(Duration.ofSeconds(7));
        assertThat(limited.getMessage()).contains("HTTP 429", "Rate limit reached for requests", "retry after 7s");
        assertThat(reply).isEqualTo(REPLY);
        assertThat(server.requests()).hasSize(2);
    }

    @Test
    void readsRetryAfterGivenAsAnHttpDate() {
        server.enqueue(Scripted.of(429, "").header("Retry-After", "Wed, 21 Oct 2015 07:28:30 GMT"));
        Clock now = Clock.fixed(Instant.parse("2015-10-21T07:28:00Z"), ZoneOffset.UTC);

        GeneratorException e = catchThrowableOfType(GeneratorException.class,
                () -> new OpenAiCompatibleGenerator(config(null, Duration.ofSeconds(5)), now).generate(first(ADD)));

        assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void quotaExhaustionIsPermanentThoughItComesAs429() {
        GeneratorException e = failureOn(Scripted.of(429, "{\"error\":{\"message\":\"You exceeded your current quota\","
                + "\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}"));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("no quota left", "You exceeded your current quota");
    }

    @ParameterizedTest
    @ValueSource(ints = {500, 502, 503})
    void serverErrorsAreTransient(int status) {
        GeneratorException e = failureOn(Scripted.of(status, status == 502
                ? "<html><body><h1>502 Bad Gateway</h1></body></html>"
                : "{\"error\":{\"message\":\"The server had an error while processing your request.\"}}"));

        assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(e.retryAfter()).isNull();
        assertThat(e.getMessage()).contains("HTTP " + status).doesNotContain("\n");
    }

    @Test
    void serviceUnavailableCarriesItsRetryAfter() {
        GeneratorException e = failureOn(Scripted.of(503, "").header("Retry-After", "2"));

        assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aReplySlowerThanTheTimeoutIsTransientAndReturnsInTime() {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)).delayed(Duration.ofSeconds(10)));
        OpenAiCompatibleGenerator generator = new OpenAiCompatibleGenerator(config(null, Duration.ofMillis(500)));

        long started = System.nanoTime();
        GeneratorException e = catchThrowableOfType(GeneratorException.class, () -> generator.generate(first(ADD)));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(e.getMessage()).contains("no reply", "within 500ms", "generator.openai.timeout");
        assertThat(millis).isBetween(400L, 3_000L);
    }

    @Test
    void aBodyThatStallsAfterTheHeadersIsBoundedByTheTimeoutToo() {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)).stalledMidBody(Duration.ofSeconds(10)));
        OpenAiCompatibleGenerator generator = new OpenAiCompatibleGenerator(config(null, Duration.ofMillis(500)));

        long started = System.nanoTime();
        GeneratorException e = catchThrowableOfType(GeneratorException.class, () -> generator.generate(first(ADD)));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(millis).isLessThan(3_000L);
    }

    @Test
    void aRefusedConnectionIsTransient() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        OpenAiConfig nobody = new OpenAiConfig("http://127.0.0.1:" + closedPort + "/v1", "test-model",
                null, Duration.ofSeconds(5), 0.2, 512);

        GeneratorException e = catchThrowableOfType(GeneratorException.class, () -> new OpenAiCompatibleGenerator(nobody).generate(first(ADD)));

        assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
        assertThat(e.getMessage()).contains("cannot connect to http://127.0.0.1:" + closedPort + "/v1/chat/completions",
                "is the server running");
    }

    @Test
    void aConnectionClosedWithoutAnAnswerIsTransient() throws Exception {
        try (ServerSocket hangUp = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> closer = CompletableFuture.runAsync(() -> {
                try (Socket s = hangUp.accept()) {
                    s.getInputStream().read(new byte[256]);
                } catch (IOException e) {
                    // the test asserts the client's side
                }
            });
            OpenAiConfig rude = new OpenAiConfig("http://127.0.0.1:" + hangUp.getLocalPort() + "/v1",
                    "test-model", null, Duration.ofSeconds(5), 0.2, 512);

            GeneratorException e = catchThrowableOfType(GeneratorException.class,
                    () -> new OpenAiCompatibleGenerator(rude).generate(first(ADD)));

            assertThat(e.kind()).isEqualTo(Kind.TRANSIENT);
            assertThat(e.getMessage()).contains("connection to", "failed");
            closer.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aMalformedJsonBodyIsPermanent() {
        GeneratorException e = failureOn(Scripted.of(200, "{\"id\":\"chatcmpl-1\",\"choices\":[{\"message\":"));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("not valid JSON").doesNotContain("\n");
    }

    @Test
    void anEmptyChoicesListIsPermanent() {
        GeneratorException e = failureOn(Scripted.of(200, "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[]}"));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("empty 'choices'");
    }

    @Test
    void aBodyWithoutChoicesIsPermanent() {
        GeneratorException e = failureOn(Scripted.of(200, "{\"models\":[\"a\",\"b\"]}"));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("no 'choices'");
    }

    @Test
    void nullContentIsPermanent() {
        GeneratorException e = failureOn(Scripted.of(200, LoopbackLlmServer.completion(null, "stop")));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("no text content");
    }

    @Test
    void aReplyCutOffAtMaxTokensIsPermanentAndSaysWhatToRaise() {
        GeneratorException e = failureOn(Scripted.of(200, LoopbackLlmServer.completion("```python\ndef add(a, b):\n", "length")));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).isEqualTo("the reply was cut off at max_tokens=512; raise generator.openai.maxTokens");
    }

    @ParameterizedTest
    @ValueSource(ints = {401, 403})
    void aRefusedKeyIsAnAuthenticationFailureThatNeverShowsTheKey(int status) {
        GeneratorException e = failureOn(Scripted.of(status,
                "{\"error\":{\"message\":\"Incorrect API key provided: " + KEY + ".\",\"type\":\"invalid_request_error\","
                        + "\"code\":\"invalid_api_key\"}}"));

        assertThat(e.kind()).isEqualTo(Kind.AUTHENTICATION);
        assertThat(e.getMessage()).startsWith("the endpoint refused the API key (HTTP " + status + "): set CODEAGENT_LLM_API_KEY")
                .contains("Incorrect API key provided")
                .doesNotContain(KEY);
    }

    @Test
    void aBadRequestCarriesTheServersMessage() {
        GeneratorException e = failureOn(Scripted.of(400, "{\"error\":{\"message\":\"This model's maximum context length is 8192 "
                + "tokens.\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}"));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).isEqualTo("the endpoint rejected the request (HTTP 400): This model's maximum context length "
                + "is 8192 tokens.");
    }

    @Test
    void anUnknownModelIsPermanentAndNamesModelAndUrl() {
        // what Ollama's /v1 answers for a model that was never pulled
        GeneratorException e = failureOn(Scripted.of(404, "{\"error\":{\"message\":\"model \\\"test-model\\\" not found, try "
                + "pulling it first\",\"type\":\"api_error\",\"param\":null,\"code\":null}}"));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("model 'test-model' not found at " + server.baseUrl() + "/chat/completions",
                "try pulling it first", "generator.openai.model");
    }

    @Test
    void aWrongBaseUrlIs404WithAHintAboutV1() {
        GeneratorException e = failureOn(new Scripted(404, java.util.Map.of("Content-Type", "text/plain"), "404 page not found",
                Duration.ZERO, Duration.ZERO));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("no chat-completions endpoint", "generator.openai.baseUrl", "/v1");
    }

    @Test
    void anOversizedBodyIsRefusedNotBuffered() {
        String huge = LoopbackLlmServer.completion("x".repeat((int) OpenAiCompatibleGenerator.MAX_RESPONSE_BYTES));

        GeneratorException e = failureOn(Scripted.of(200, huge));

        assertThat(e.kind()).isEqualTo(Kind.PERMANENT);
        assertThat(e.getMessage()).contains("larger than 8 MiB");
    }

    @Test
    void anInterruptDuringTheRequestStopsItAndKeepsTheFlag() throws Exception {
        server.enqueue(Scripted.of(200, LoopbackLlmServer.completion(REPLY)).delayed(Duration.ofSeconds(10)));
        OpenAiCompatibleGenerator generator = new OpenAiCompatibleGenerator(config(null, Duration.ofSeconds(30)));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flag = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                generator.generate(first(ADD));
            } catch (GeneratorException e) {
                thrown.set(e);
                flag.set(Thread.currentThread().isInterrupted());
            }
        });

        caller.start();
        while (server.requests().isEmpty()) {
            Thread.sleep(10);
        }
        long started = System.nanoTime();
        caller.interrupt();
        caller.join(5_000);

        assertThat(caller.isAlive()).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(2_000L);
        assertThat(thrown.get()).isInstanceOf(GeneratorException.class).hasMessage("interrupted");
        assertThat(((GeneratorException) thrown.get()).kind()).isEqualTo(Kind.PERMANENT);
        assertThat(flag.get()).isTrue();
    }

    @Test
    void describesItselfByModelAndBaseUrlWithoutTheKey() {
        assertThat(generator().describe()).isEqualTo("openai:test-model@" + server.baseUrl()).doesNotContain(KEY);
    }

    @Test
    void refusesConfigsThatCannotWork() {
        assertThatThrownBy(() -> new OpenAiCompatibleGenerator(new OpenAiConfig("localhost:11434", "m", null,
                Duration.ofSeconds(1), 0.2, 10)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("generator.openai.baseUrl");
        assertThatThrownBy(() -> new OpenAiCompatibleGenerator(new OpenAiConfig(null, "m", null,
                Duration.ofSeconds(1), 0.2, 10)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("CODEAGENT_LLM_BASE_URL");
        assertThatThrownBy(() -> new OpenAiCompatibleGenerator(new OpenAiConfig(server.baseUrl(), " ", null,
                Duration.ofSeconds(1), 0.2, 10)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("CODEAGENT_LLM_MODEL");
        assertThatThrownBy(() -> new OpenAiCompatibleGenerator(new OpenAiConfig(server.baseUrl(), "m", null,
                Duration.ofSeconds(1), 0.2, 0)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("maxTokens");
    }
}
