package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.inject.Composition;
import dev.codeagent.application.inject.EmbeddingModule;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.http.ApiServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code /mcp} of the HTTP server composed as {@code codeagent serve} composes it (every adapter found on the class
 * path, this door among them): the key check in front of it (401, 403 for a key without the {@code mcp} group), a
 * session kept to the key that opened it, the TypeScript SDK's Streamable HTTP client running a session, a key that
 * cannot read another key's run, and the MCP conformance suite against the same route.
 */
class ServeMcpIT {

    private static final String BOB = "bob-key-0123456789abcdef0123456789abcdef";
    private static final String ALICE = "alice-key-0123456789abcdef0123456789abcdef";
    private static final String CAROL = "carol-key-0123456789abcdef0123456789abcdef";
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}";
    private static final String TOOLS_LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void keysGuardTheRouteAndASessionIsItsKeys() throws Exception {
        try (Served s = serve(Map.of("http.auth.keys", "bob:" + sha256(BOB) + ":mcp,alice:" + sha256(ALICE) + ":mcp+runs,carol:"
                + sha256(CAROL) + ":executions"))) {
            HttpResponse<String> none = post(s.url(), null, null, INITIALIZE);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(none.body()).contains("Authorization: Bearer");

            HttpResponse<String> carol = post(s.url(), CAROL, null, INITIALIZE);
            assertThat(carol.statusCode()).isEqualTo(403);
            assertThat(carol.body()).contains("'carol' may not use the mcp endpoints");

            HttpResponse<String> bob = post(s.url(), BOB, null, INITIALIZE);
            assertThat(bob.statusCode()).as(bob.body()).isEqualTo(200);
            String session = bob.headers().firstValue("Mcp-Session-Id").orElseThrow();

            // alice's key is good, bob's session is not hers: not found, to use or to end
            assertThat(post(s.url(), ALICE, session, TOOLS_LIST).statusCode()).isEqualTo(404);
            HttpResponse<String> delete = http.send(HttpRequest.newBuilder(s.url()).DELETE()
                    .header("Authorization", "Bearer " + ALICE).header("Mcp-Session-Id", session).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(delete.statusCode()).isEqualTo(404);
            HttpResponse<String> still = post(s.url(), BOB, session, TOOLS_LIST);
            assertThat(still.statusCode()).as(still.body()).isEqualTo(200);
            assertThat(still.body()).contains("execute_code");
        }
    }

    @Test
    void theTypeScriptSdkRunsASessionWithAKey() throws Exception {
        try (Served s = serve(Map.of("http.auth.keys", "bob:" + sha256(BOB) + ":mcp,alice:" + sha256(ALICE) + ":mcp"))) {
            NodeClients.Result r = NodeClients.run(NodeClients.install(), List.of("node", "http-session.mjs"), Map.of(
                    "URL", s.url().toString(), "KEY", BOB, "KEY_NAME", "bob", "OTHER_KEY", ALICE), 300);
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).contains("ok tools/list", "ok execute_code", "ok caps", "ok run_cell state kept",
                    "ok solve_task run read by its key", "ok run_cell cancelled", "ok another key cannot read the run",
                    "ok session deleted");
            // the session's DELETE ended its kernel (the cells above proved there was one)
            assertThat(s.composition().get(OpenSessions.class).live()).isZero();
        }
    }

    @Test
    void theConformanceSuitePassesOnTheServersRoute() throws Exception {
        // the suite sends no credentials (and Node's fetch refuses them in a URL): the route with auth off, still
        // behind the same guard
        try (Served s = serve(Map.of("http.auth.enabled", "false"))) {
            for (String scenario : ConformanceIT.PROTOCOL_SCENARIOS) {
                NodeClients.Result r = NodeClients.run(NodeClients.install(), List.of("node",
                        "node_modules/@modelcontextprotocol/conformance/dist/index.js", "server", "--url", s.url().toString(),
                        "--scenario", scenario), Map.of(), 180);
                Files.writeString(Path.of("target", "conformance-serve-" + scenario + ".txt"), r.output());
                assertThat(r.exit()).as(scenario + ":\n" + r.output()).isZero();
                assertThat(r.output()).as(scenario).containsPattern("Passed: (\\d+)/\\1, 0 failed");
            }
        }
    }

    @Test
    void aPageOfAnotherOriginCannotTalkMcp() throws Exception {
        String evil = "https://evil.example";
        String call = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_code\","
                + "\"arguments\":{\"language\":\"python\",\"code\":\"print(6*7)\"}}}";
        try (Served s = serve(Map.of("http.auth.keys", "bob:" + sha256(BOB) + ":mcp"))) {
            // MCP's specification: servers MUST validate Origin. A good key does not make a foreign page's request good
            HttpResponse<String> init = post(s.url(), BOB, null, INITIALIZE, evil);
            assertThat(init.statusCode()).as(init.body()).isEqualTo(403);
            assertThat(init.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(init.body()).contains("https://codeagent.dev/problems/cross-site", "'" + evil + "'", "not for cross-site use");
            assertThat(post(s.url(), BOB, null, INITIALIZE, "null").statusCode()).isEqualTo(403);
            // any method here, the event stream's GET too
            HttpResponse<String> stream = http.send(HttpRequest.newBuilder(s.url()).GET().header("Authorization", "Bearer " + BOB)
                    .header("Accept", "text/event-stream").header("Origin", evil).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(stream.statusCode()).isEqualTo(403);

            HttpResponse<String> ok = post(s.url(), BOB, null, INITIALIZE, null);
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            String session = ok.headers().firstValue("Mcp-Session-Id").orElseThrow();
            // a foreign page that learnt the session's id runs nothing in it
            HttpResponse<String> refused = post(s.url(), BOB, session, call, evil);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
            assertThat(refused.body()).doesNotContain("42");
            // the server's own origin (a page it served) is not foreign; the Inspector's proxy and the SDKs send none
            HttpResponse<String> own = post(s.url(), BOB, session, call, "http://127.0.0.1:" + s.url().getPort());
            assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
            assertThat(own.body()).contains("42");
            // with a key the Host is not checked: a proxy's name is fine
            assertThat(raw(s.url(), "codeagent.example", BOB, INITIALIZE)).startsWith("HTTP/1.1 200");
        }
        try (Served s = serve(Map.of("http.auth.enabled", "false"))) {
            // DNS rebinding: the page's own name resolving to 127.0.0.1, Origin and Host agreeing
            String host = "evil.example:" + s.url().getPort();
            String rebound = raw(s.url(), host, null, INITIALIZE, "Origin: http://" + host);
            assertThat(rebound).startsWith("HTTP/1.1 421").contains("https://codeagent.dev/problems/unknown-host", "evil.example");
            assertThat(raw(s.url(), "localhost:" + s.url().getPort(), null, INITIALIZE)).startsWith("HTTP/1.1 200");
            assertThat(post(s.url(), null, null, INITIALIZE, evil).statusCode()).isEqualTo(403);
        }
    }

    /** A POST of {@code body} to /mcp sent with the {@code Host} given (java.net.http sets its own), read to the end. */
    private static String raw(URI url, String host, String key, String body, String... headers) throws Exception {
        byte[] content = body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder("POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
                + content.length + "\r\n");
        if (key != null) {
            head.append("Authorization: Bearer ").append(key).append("\r\n");
        }
        for (String h : headers) {
            head.append(h).append("\r\n");
        }
        head.append("\r\n");
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(content);
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private HttpResponse<String> post(URI url, String key, String session, String body, String origin) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream");
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        if (session != null) {
            b.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-06-18");
        }
        if (origin != null) {
            b.header("Origin", origin);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(URI url, String key, String session, String body) throws Exception {
        return post(url, key, session, body, null);
    }

    private static String sha256(String key) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    }

    record Served(ApiServer server, Composition composition) implements AutoCloseable {
        URI url() {
            return server.uri().resolve("/mcp");
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /** The server as codeagent serve composes it, with a model that answers every prompt with the same program. */
    private static Served serve(Map<String, String> settings) throws Exception {
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("sandbox.kind", "process");
        overrides.put("store.kind", "memory");
        overrides.put("http.host", "127.0.0.1");
        overrides.put("http.port", "0");
        overrides.put("http.rateLimitPerMinute", "100000");
        overrides.put("http.shutdownGrace", "2s");
        overrides.putAll(settings);
        Path empty = Files.createTempFile("codeagent-mcp-test", ".yaml");
        Files.writeString(empty, "{}\n");
        CodeAgentConfig config = new ConfigLoader().load(Optional.of(empty), Map.of(), overrides);
        Files.delete(empty);
        Composition composition = Composition.create(config, Adapters.discover().modules(),
                new EmbeddingModule.Embedding(List.of(), List.of(), List.of(), request -> "```python\nprint('hello')\n```",
                        null, null));
        return new Served(ApiServer.start(composition), composition);
    }
}
