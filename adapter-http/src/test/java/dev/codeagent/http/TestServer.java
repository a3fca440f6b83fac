package dev.codeagent.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.inject.Composition;
import dev.codeagent.application.inject.EmbeddingModule;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.domain.solving.CodeGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real server on a free loopback port, composed through the root ({@link Composition}) with the real
 * process sandbox, plus a real HTTP client. Config goes through {@link ConfigLoader} overrides, as
 * the command line does.
 */
final class TestServer implements AutoCloseable {

    static final String ADMIN_KEY = "admin-test-key-0123456789";
    static final String EXEC_KEY = "exec-only-test-key-9876543210";
    /** An operator's key (it names admin): the one that reads /metrics and the details of /health. */
    static final String OPS_KEY = "ops-operator-test-key-2468013579";

    final ApiServer server;
    final URI base;
    final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private TestServer(ApiServer server) {
        this.server = server;
        this.base = server.uri();
    }

    /** A client for a server composed elsewhere; closing it closes the server. */
    static TestServer over(ApiServer server) {
        return new TestServer(server);
    }

    static Builder builder() {
        return new Builder();
    }

    /** Builds a test server; every setting is a config override by dotted key. */
    static final class Builder {
        private final Map<String, String> overrides = new LinkedHashMap<>();
        private CodeGenerator generator = request -> "```python\nprint('hello')\n```";
        private String yaml = "{}\n";

        Builder() {
            overrides.put("sandbox.kind", "process");
            overrides.put("store.kind", "memory");
            overrides.put("http.port", "0");
            overrides.put("http.rateLimitPerMinute", "100000");
            overrides.put("http.shutdownGrace", "2s");
            overrides.put("http.auth.keys", "admin:" + ApiKeys.sha256Hex(ADMIN_KEY) + ",exec:" + ApiKeys.sha256Hex(EXEC_KEY)
                    + ":executions,ops:" + ApiKeys.sha256Hex(OPS_KEY) + ":admin");
        }

        Builder set(String key, String value) {
            overrides.put(key, value);
            return this;
        }

        /** Leaves a default override of this builder out (to give the key in {@link #yaml} instead). */
        Builder unset(String key) {
            overrides.remove(key);
            return this;
        }

        /** The config file's text (YAML), under the overrides: for what overrides cannot say (objects in lists). */
        Builder yaml(String text) {
            this.yaml = text;
            return this;
        }

        Builder generator(CodeGenerator g) {
            this.generator = g;
            return this;
        }

        CodeAgentConfig config() {
            try {
                Path empty = Files.createTempFile("codeagent-http-test", ".yaml");
                Files.writeString(empty, yaml);
                try {
                    return new ConfigLoader().load(Optional.of(empty), Map.of(), overrides);
                } finally {
                    Files.deleteIfExists(empty);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        TestServer start() {
            // the server owns the agent from here, also when it fails to start
            return new TestServer(ApiServer.start(Composition.create(config(), Adapters.discover().modules(),
                    new EmbeddingModule.Embedding(List.of(), List.of(), List.of(), generator, null, null))));
        }
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30));
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> get(String path, String key) {
        HttpRequest.Builder b = request(path).GET();
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return send(b.build());
    }

    HttpResponse<String> post(String path, String key, String json) {
        HttpRequest.Builder b = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return send(b.build());
    }

    HttpResponse<String> delete(String path, String key) {
        return send(request(path).header("Authorization", "Bearer " + key).DELETE().build());
    }

    static JsonNode json(HttpResponse<String> response) {
        try {
            return Views.MAPPER.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + response.body(), e);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
