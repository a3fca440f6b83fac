package dev.codeagent.generator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import dev.codeagent.domain.solving.GeneratorException.Kind;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link CodeGenerator} over an OpenAI-compatible chat-completions endpoint:
 * {@code POST {baseUrl}/chat/completions}, non-streaming. The same wire format is spoken by OpenAI,
 * Ollama ({@code http://localhost:11434/v1}), vLLM, llama.cpp's server and LM Studio, so one adapter
 * serves them all.
 *
 * <p>The conversation is a system prompt, the task, then for each failed attempt the model's reply and
 * the feedback on it. The whole reply text is returned; code extraction is the caller's job.
 *
 * <p>Failures become {@link GeneratorException}s whose kind tells the caller what to do: rate limits
 * (429, with the server's {@code Retry-After}), 5xx, timeouts and broken connections are
 * {@link Kind#TRANSIENT}; 401/403 are {@link Kind#AUTHENTICATION}; everything else (bad request, unknown
 * model, malformed or truncated reply) is {@link Kind#PERMANENT}. This class does not retry: that policy
 * belongs to the application. The API key is sent only as {@code Authorization: Bearer} and is never
 * logged or put in a message.
 *
 * <p>Safe for concurrent use. {@code generator.openai.timeout} bounds each whole request, body included.
 */
public final class OpenAiCompatibleGenerator implements CodeGenerator {

    private static final Logger log = LoggerFactory.getLogger(OpenAiCompatibleGenerator.class);

    /** A chat completion capped by max_tokens is far below this; more means something is wrong. */
    static final long MAX_RESPONSE_BYTES = 8L << 20;
    private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_MESSAGE_CHARS = 300;
    private static final String COMPLETIONS_PATH = "/chat/completions";

    private final OpenAiConfig config;
    private final String baseUrl;
    private final URI endpoint;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final Clock clock;

    /** @throws ConfigException when the config cannot work (no base URL or model, a bad URL, bad numbers) */
    public OpenAiCompatibleGenerator(OpenAiConfig config) {
        this(config, Clock.systemUTC());
    }

    OpenAiCompatibleGenerator(OpenAiConfig config, Clock clock) {
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.baseUrl = normalizeBaseUrl(config.baseUrl());
        this.endpoint = endpoint(baseUrl);
        if (config.model() == null || config.model().isBlank()) {
            throw new ConfigException("generator.openai.model is not set; set CODEAGENT_LLM_MODEL or --llm-model");
        }
        if (config.timeout() == null || config.timeout().isZero() || config.timeout().isNegative()) {
            throw new ConfigException("generator.openai.timeout must be positive, was " + config.timeout());
        }
        if (config.maxTokens() < 1) {
            throw new ConfigException("generator.openai.maxTokens must be at least 1, was " + config.maxTokens());
        }
        if (!(config.temperature() >= 0 && config.temperature() <= 2)) {
            throw new ConfigException("generator.openai.temperature must be between 0 and 2, was " + config.temperature());
        }
        Duration connect = config.timeout().compareTo(MAX_CONNECT_TIMEOUT) < 0 ? config.timeout() : MAX_CONNECT_TIMEOUT;
        // HTTP/1.1: local servers (Ollama, llama.cpp) do not speak h2c, and an upgrade attempt gains nothing
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(connect)
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    @Override
    public String describe() {
        return "openai:" + config.model() + "@" + baseUrl;
    }

    @Override
    public String generate(GenerationRequest request) {
        Objects.requireNonNull(request, "request");
        HttpRequest.Builder builder = HttpRequest.newBuilder(endpoint)
                .timeout(config.timeout())
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(requestBody(request)));
        if (hasApiKey()) {
            builder.header("Authorization", "Bearer " + config.apiKey());
        }
        log.debug("POST {} model={} attempt={} messages={}", endpoint, config.model(), request.attemptNumber(),
                2 + 2 * request.history().size());
        long started = System.nanoTime();
        HttpResponse<String> response = send(builder.build());
        log.debug("HTTP {} from {} in {} ms", response.statusCode(), endpoint,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return interpret(response);
    }

    private byte[] requestBody(GenerationRequest request) {
        ObjectNode body = json.createObjectNode();
        body.put("model", config.model());
        ArrayNode messages = body.putArray("messages");
        for (ChatPrompt.Message m : ChatPrompt.messages(request)) {
            messages.addObject().put("role", m.role()).put("content", m.content());
        }
        body.put("temperature", config.temperature());
        body.put("max_tokens", config.maxTokens());
        body.put("stream", false);
        try {
            return json.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new GeneratorException(Kind.PERMANENT, "could not write the request: " + e.getOriginalMessage(), null, e);
        }
    }

    private HttpResponse<String> send(HttpRequest request) {
        CompletableFuture<HttpResponse<String>> future =
                http.sendAsync(request, info -> new CappedBodySubscriber(MAX_RESPONSE_BYTES));
        try {
            // the request timeout covers only the wait for headers; this bounds the body as well
            return future.get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new GeneratorException(Kind.PERMANENT, "interrupted", null, e);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw noReplyInTime(e);
        } catch (ExecutionException e) {
            throw translate(e.getCause());
        }
    }

    private GeneratorException noReplyInTime(Throwable cause) {
        return new GeneratorException(Kind.TRANSIENT, "no reply from " + endpoint + " within " + seconds(config.timeout())
                + " (generator.openai.timeout)", null, cause);
    }

    private GeneratorException translate(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof HttpConnectTimeoutException) {
            return new GeneratorException(Kind.TRANSIENT, "could not connect to " + endpoint + " within "
                    + seconds(MAX_CONNECT_TIMEOUT.compareTo(config.timeout()) < 0 ? MAX_CONNECT_TIMEOUT : config.timeout()), null, t);
        }
        if (t instanceof HttpTimeoutException) {
            return noReplyInTime(t);
        }
        if (t instanceof ConnectException) {
            return new GeneratorException(Kind.TRANSIENT, "cannot connect to " + endpoint + " (" + reason(t)
                    + "); is the server running? (generator.openai.baseUrl)", null, t);
        }
        if (t instanceof CappedBodySubscriber.TooLargeException) {
            return new GeneratorException(Kind.PERMANENT, "the reply from " + endpoint + " is unusable: " + t.getMessage(), null, t);
        }
        if (t instanceof SSLHandshakeException) {
            return new GeneratorException(Kind.PERMANENT, "TLS handshake with " + endpoint + " failed: " + reason(t), null, t);
        }
        if (t instanceof IOException) {
            return new GeneratorException(Kind.TRANSIENT, "the connection to " + endpoint + " failed: " + reason(t), null, t);
        }
        return new GeneratorException(Kind.PERMANENT, "the request to " + endpoint + " failed: " + reason(t), null, t);
    }

    private String interpret(HttpResponse<String> response) {
        int status = response.statusCode();
        String body = response.body() == null ? "" : response.body();
        if (status >= 200 && status < 300) {
            return replyContent(status, body);
        }
        Optional<JsonNode> error = errorObject(body);
        String said = serverMessage(body).map(m -> ": " + m).orElse("");
        if (status == 401 || status == 403) {
            String what = hasApiKey() ? "the endpoint refused the API key (HTTP " + status + "): set CODEAGENT_LLM_API_KEY "
                    + "(generator.openai.apiKey) to a key valid for " + baseUrl
                    : "the endpoint requires an API key (HTTP " + status + "): set CODEAGENT_LLM_API_KEY (generator.openai.apiKey)";
            throw failure(Kind.AUTHENTICATION, what + said);
        }
        if (status == 429) {
            if (error.map(e -> "insufficient_quota".equals(e.path("code").asText())
                    || "insufficient_quota".equals(e.path("type").asText())).orElse(false)) {
                throw failure(Kind.PERMANENT, "the account behind the API key has no quota left (HTTP 429)" + said);
            }
            Duration wait = retryAfter(response);
            throw new GeneratorException(Kind.TRANSIENT, "the endpoint is rate limiting requests (HTTP 429)" + said
                    + (wait == null ? "" : "; retry after " + seconds(wait)), wait, null);
        }
        if (status == 404) {
            if (isModelError(body, error)) {
                throw failure(Kind.PERMANENT, "model '" + config.model() + "' not found at " + endpoint + " (HTTP 404)" + said
                        + "; check generator.openai.model (CODEAGENT_LLM_MODEL)");
            }
            throw failure(Kind.PERMANENT, "no chat-completions endpoint at " + endpoint + " (HTTP 404)" + said
                    + "; check generator.openai.baseUrl (CODEAGENT_LLM_BASE_URL), which usually ends in /v1");
        }
        if (status == 408 || status >= 500) {
            Duration wait = retryAfter(response);
            throw new GeneratorException(Kind.TRANSIENT, "the endpoint failed (HTTP " + status + " from " + endpoint + ")" + said,
                    wait, null);
        }
        if (status >= 400) {
            throw failure(Kind.PERMANENT, "the endpoint rejected the request (HTTP " + status + ")" + said);
        }
        String location = response.headers().firstValue("Location").map(l -> " to " + l).orElse("");
        throw failure(Kind.PERMANENT, "unexpected HTTP " + status + location + " from " + endpoint
                + "; point generator.openai.baseUrl at the API itself");
    }

    private String replyContent(int status, String body) {
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (JsonProcessingException e) {
            throw failure(Kind.PERMANENT, "the reply from " + endpoint + " is not valid JSON (HTTP " + status + "): "
                    + oneLine(e.getOriginalMessage()) + "; body: " + snippet(body));
        }
        if (root == null || root.isMissingNode()) {
            throw failure(Kind.PERMANENT, "the reply from " + endpoint + " is empty (HTTP " + status + ")");
        }
        if (!root.isObject()) {
            throw failure(Kind.PERMANENT, "the reply from " + endpoint + " is not a JSON object: " + snippet(body));
        }
        if (root.hasNonNull("error")) {
            throw failure(Kind.PERMANENT, "the endpoint answered with an error" + serverMessage(body).map(m -> ": " + m).orElse(""));
        }
        JsonNode choices = root.get("choices");
        if (choices == null || !choices.isArray()) {
            throw failure(Kind.PERMANENT, "the reply from " + endpoint + " has no 'choices' (is this a chat-completions API?): "
                    + snippet(body));
        }
        if (choices.isEmpty()) {
            throw failure(Kind.PERMANENT, "the reply from " + endpoint + " has an empty 'choices' list: the model returned nothing");
        }
        JsonNode choice = choices.get(0);
        String finish = choice.path("finish_reason").asText("");
        if ("length".equals(finish)) {
            throw failure(Kind.PERMANENT, "the reply was cut off at max_tokens=" + config.maxTokens()
                    + "; raise generator.openai.maxTokens");
        }
        if ("content_filter".equals(finish)) {
            throw failure(Kind.PERMANENT, "the endpoint's content filter stopped the reply (finish_reason: content_filter)");
        }
        JsonNode message = choice.get("message");
        if (message == null || !message.isObject()) {
            throw failure(Kind.PERMANENT, "the reply's first choice has no 'message': " + snippet(body));
        }
        JsonNode content = message.get("content");
        if (content != null && content.isTextual()) {
            return content.asText();
        }
        if (content != null && content.isArray()) {
            // some servers send content parts: [{"type":"text","text":"..."}]
            StringBuilder text = new StringBuilder();
            content.forEach(part -> text.append(part.path("text").asText("")));
            return text.toString();
        }
        String why = message.hasNonNull("refusal") ? "the model refused: " + oneLine(message.get("refusal").asText())
                : message.has("tool_calls") ? "the model asked to call a tool instead of answering"
                : "finish_reason: " + (finish.isEmpty() ? "none" : finish);
        throw failure(Kind.PERMANENT, "the reply's message has no text content (" + why + ")");
    }

    private static GeneratorException failure(Kind kind, String message) {
        return new GeneratorException(kind, message);
    }

    private Duration retryAfter(HttpResponse<?> response) {
        return RetryAfter.parse(response.headers().firstValue("retry-after-ms"), response.headers().firstValue("Retry-After"), clock)
                .orElse(null);
    }

    private boolean isModelError(String body, Optional<JsonNode> error) {
        if (error.map(e -> e.path("code").asText("").contains("model")).orElse(false)) {
            return true;
        }
        String lower = body.toLowerCase(Locale.ROOT);
        return lower.contains("model") || lower.contains(config.model().toLowerCase(Locale.ROOT));
    }

    /** OpenAI's {@code {"error": {...}}}, when the body has it. */
    private Optional<JsonNode> errorObject(String body) {
        return parseQuietly(body).map(root -> root.get("error")).filter(JsonNode::isObject);
    }

    /**
     * What the server said went wrong, one line: OpenAI's {@code error.message}, vLLM's top-level
     * {@code message}, FastAPI's {@code detail}, or the start of a non-JSON body (an HTML error page).
     */
    private Optional<String> serverMessage(String body) {
        if (body.isBlank()) {
            return Optional.empty();
        }
        Optional<JsonNode> root = parseQuietly(body).filter(JsonNode::isObject);
        if (root.isEmpty()) {
            return Optional.of(snippet(body));
        }
        JsonNode r = root.get();
        for (JsonNode candidate : new JsonNode[] {r.path("error").path("message"), r.path("error"), r.path("message"), r.path("detail")}) {
            if (candidate.isTextual() && !candidate.asText().isBlank()) {
                return Optional.of(scrub(oneLine(candidate.asText())));
            }
        }
        return Optional.of(snippet(body));
    }

    private Optional<JsonNode> parseQuietly(String body) {
        try {
            return Optional.ofNullable(json.readTree(body));
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }

    private String snippet(String body) {
        String line = oneLine(body);
        return line.isEmpty() ? "(empty body)" : scrub(line);
    }

    private static String oneLine(String text) {
        String line = text == null ? "" : text.replaceAll("\\s+", " ").strip();
        return line.length() <= MAX_MESSAGE_CHARS ? line : line.substring(0, MAX_MESSAGE_CHARS) + "…";
    }

    /** Servers sometimes echo the key they were sent; it must not reach a message or a log. */
    private String scrub(String text) {
        return hasApiKey() ? text.replace(config.apiKey(), "***") : text;
    }

    private boolean hasApiKey() {
        return config.apiKey() != null && !config.apiKey().isBlank();
    }

    private static String reason(Throwable t) {
        String message = t.getMessage();
        return message == null || message.isBlank() ? t.getClass().getSimpleName() : oneLine(message);
    }

    private static String seconds(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    private static String normalizeBaseUrl(String raw) {
        if (raw == null || raw.isBlank()) {
            throw new ConfigException("generator.openai.baseUrl is not set; set CODEAGENT_LLM_BASE_URL or --llm-base-url "
                    + "(e.g. http://localhost:11434/v1 for Ollama)");
        }
        String url = raw.strip();
        while (url.endsWith("/")) {
            url = url.substring(0, url.length() - 1);
        }
        // a pasted full endpoint URL means the same thing as its base
        if (url.endsWith(COMPLETIONS_PATH)) {
            url = url.substring(0, url.length() - COMPLETIONS_PATH.length());
        }
        return url;
    }

    private static URI endpoint(String baseUrl) {
        URI uri;
        try {
            uri = new URI(baseUrl + COMPLETIONS_PATH);
        } catch (URISyntaxException e) {
            throw new ConfigException("generator.openai.baseUrl: '" + baseUrl + "' is not a valid URL (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw new ConfigException("generator.openai.baseUrl: '" + baseUrl
                    + "' is not an http(s) URL with a host (e.g. http://localhost:11434/v1)");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new ConfigException("generator.openai.baseUrl: '" + baseUrl + "' must not have a query or fragment");
        }
        return uri;
    }
}
