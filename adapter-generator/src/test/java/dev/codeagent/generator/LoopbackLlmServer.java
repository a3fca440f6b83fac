package dev.codeagent.generator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A chat-completions server on 127.0.0.1 for tests: it records every request as it arrived on the wire
 * and answers with scripted responses in order (status, headers, body, delays).
 */
final class LoopbackLlmServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A request as received. Header names are lower-case. */
    record Recorded(String method, String path, Map<String, List<String>> headers, String body) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null ? null : values.get(0);
        }
    }

    /** One scripted answer. */
    record Scripted(int status, Map<String, String> headers, String body, Duration beforeHeaders, Duration midBody) {
        static Scripted of(int status, String body) {
            return new Scripted(status, Map.of("Content-Type", "application/json"), body, Duration.ZERO, Duration.ZERO);
        }

        Scripted header(String name, String value) {
            Map<String, String> h = new LinkedHashMap<>(headers);
            h.put(name, value);
            return new Scripted(status, h, body, beforeHeaders, midBody);
        }

        /** Waits this long before sending anything. */
        Scripted delayed(Duration d) {
            return new Scripted(status, headers, body, d, midBody);
        }

        /** Sends the headers and half the body, then stalls this long. */
        Scripted stalledMidBody(Duration d) {
            return new Scripted(status, headers, body, beforeHeaders, d);
        }
    }

    private final HttpServer server;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "loopback-llm");
        t.setDaemon(true);
        return t;
    });
    private final ConcurrentLinkedQueue<Scripted> script = new ConcurrentLinkedQueue<>();
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();

    LoopbackLlmServer() {
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(pool);
        server.createContext("/", this::handle);
        server.start();
    }

    /** The base URL a client is configured with, ending in {@code /v1}. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    LoopbackLlmServer enqueue(Scripted... responses) {
        script.addAll(List.of(responses));
        return this;
    }

    List<Recorded> requests() {
        return List.copyOf(requests);
    }

    /** A chat completion exactly as OpenAI sends one. */
    static String completion(String content, String finishReason) {
        ObjectNode root = JSON.createObjectNode()
                .put("id", "chatcmpl-test1").put("object", "chat.completion").put("created", 1_700_000_000L)
                .put("model", "test-model").put("system_fingerprint", "fp_test");
        ObjectNode choice = root.putArray("choices").addObject().put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (content == null) {
            message.putNull("content");
        } else {
            message.put("content", content);
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", finishReason);
        root.putObject("usage").put("prompt_tokens", 42).put("completion_tokens", 17).put("total_tokens", 59);
        return root.toString();
    }

    static String completion(String content) {
        return completion(content, "stop");
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(v)));
            requests.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body));
            Scripted answer = script.poll();
            if (answer == null) {
                answer = Scripted.of(500, "{\"error\":{\"message\":\"no scripted response left\"}}");
            }
            pause(answer.beforeHeaders());
            answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                OutputStream out = exchange.getResponseBody();
                int half = answer.midBody().isZero() ? bytes.length : bytes.length / 2;
                out.write(bytes, 0, half);
                out.flush();
                pause(answer.midBody());
                out.write(bytes, half, bytes.length - half);
            }
        } catch (IOException e) {
            // the client went away (a timeout test): nothing to answer
        }
    }

    private static void pause(Duration d) {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
