package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a web page in the user's browser can make of this server, sent as the browser would send it (raw requests on a
 * real socket: forged {@code Origin}, {@code Host} and {@code Sec-Fetch-Site}): a "simple" cross-site POST (text/plain
 * or a form, no preflight) to run code, a DNS-rebinding page (its own name resolving to 127.0.0.1) that could also read
 * the replies, a WebSocket opened from another origin. Each is refused before any work, and the witness that no code ran
 * is the server's own count of executions and of live sessions (the process sandbox lets a program write nothing on the
 * host, so a marker file could not tell). The legitimate callers — no Origin (curl, SDKs), the server's own origin (the
 * console) — still work.
 */
class CrossSiteIT {

    private static final String PISTON = "{\"language\":\"python\",\"version\":\"*\",\"files\":[{\"content\":\"print(6*7)\"}]}";
    private static final String EXECUTION = "{\"language\":\"python\",\"code\":\"print(6*7)\"}";
    private static final String EVIL = "https://evil.example";

    private static TestServer open;
    private static TestServer keyed;

    @BeforeAll
    static void start() {
        open = TestServer.builder().set("http.auth.keys", "").set("http.auth.enabled", "false").start();
        keyed = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        if (open != null) {
            open.close();
        }
        if (keyed != null) {
            keyed.close();
        }
    }

    // ---------------------------------------------------------------- auth off: the local server

    @Test
    void aSimpleCrossSitePostRunsNothing() {
        long before = executions(open, null);
        Reply piston = send(open, "POST", "/api/v2/execute", Map.of("Origin", EVIL, "Content-Type", "text/plain"), PISTON);
        assertCrossSite(piston, EVIL);
        // Piston clients read "message"
        assertThat(piston.body()).contains("\"message\":");

        Reply form = send(open, "POST", "/v1/executions", Map.of("Origin", EVIL,
                "Content-Type", "application/x-www-form-urlencoded"), EXECUTION);
        assertCrossSite(form, EVIL);
        Reply json = send(open, "POST", "/v1/executions", Map.of("Origin", "http://evil.example:" + open.base.getPort(),
                "Content-Type", "application/json"), EXECUTION);
        assertCrossSite(json, "http://evil.example:" + open.base.getPort());
        assertThat(executions(open, null)).as("executions after the cross-site posts").isEqualTo(before);
    }

    @Test
    void theOpaqueOriginOfASandboxedFrameOrAFileIsForeignToo() {
        long before = executions(open, null);
        Reply reply = send(open, "POST", "/api/v2/execute", Map.of("Origin", "null", "Content-Type", "text/plain"), PISTON);
        assertCrossSite(reply, "null");
        assertThat(executions(open, null)).isEqualTo(before);
    }

    @Test
    void aCrossSiteFetchWithoutOriginIsToldBySecFetchSite() {
        Reply reply = send(open, "POST", "/v1/sessions", Map.of("Sec-Fetch-Site", "cross-site",
                "Content-Type", "application/json"), "{}");
        assertThat(reply.status()).as(reply.text()).isEqualTo(403);
        assertThat(reply.body()).contains("https://codeagent.dev/problems/cross-site", "Sec-Fetch-Site", "cross-site");
        assertThat(sessionsLive(open, null)).isZero();
        Reply sameSite = send(open, "DELETE", "/v1/sessions/nothing", Map.of("Sec-Fetch-Site", "same-site"), null);
        assertThat(sameSite.status()).as(sameSite.text()).isEqualTo(403);
    }

    @Test
    void aDnsRebindingPageIsNotAnsweredWithAuthOff() {
        String host = "evil.example:" + open.base.getPort();
        long before = executions(open, null);
        // its own origin as far as the browser knows: Origin and Host agree, only the name is foreign
        Reply post = send(open, "POST", "/api/v2/execute", Map.of("Host", host, "Origin", "http://" + host,
                "Content-Type", "text/plain"), PISTON);
        assertThat(post.status()).as(post.text()).isEqualTo(421);
        assertThat(post.body()).contains("https://codeagent.dev/problems/unknown-host", "evil.example", "http.host");
        assertThat(executions(open, null)).isEqualTo(before);
        // nor read: GETs send no Origin when same-origin, and the replies would be the page's to read
        Reply read = send(open, "GET", "/v1/runs", Map.of("Host", host), null);
        assertThat(read.status()).as(read.text()).isEqualTo(421);
        Reply health = send(open, "GET", "/health", Map.of("Host", "evil.example"), null);
        assertThat(health.status()).as(health.text()).isEqualTo(421);
        assertThat(health.body()).doesNotContain("\"sandbox\"");
        assertThat(open.get("/metrics", null).body()).contains("codeagent_http_rejected_total{reason=\"unknown_host\"}");
    }

    @Test
    void aWebSocketFromAnotherOriginIsRefusedWithAProblem() {
        Reply upgrade = upgrade(open, Map.of("Origin", EVIL));
        assertCrossSite(upgrade, EVIL);
        Reply rebound = upgrade(open, Map.of("Host", "evil.example:" + open.base.getPort(),
                "Origin", "http://evil.example:" + open.base.getPort()));
        assertThat(rebound.status()).as(rebound.text()).isEqualTo(421);
        // the console's own page, or a client sending no Origin, still connects
        assertThat(upgrade(open, Map.of()).status()).isEqualTo(101);
        assertThat(upgrade(open, Map.of("Origin", "http://127.0.0.1:" + open.base.getPort())).status()).isEqualTo(101);
    }

    @Test
    void theLegitimateCallersStillWork() {
        long before = executions(open, null);
        // curl, an SDK: no Origin
        Reply curl = send(open, "POST", "/v1/executions", Map.of("Content-Type", "application/json"), EXECUTION);
        assertThat(curl.status()).as(curl.text()).isEqualTo(200);
        assertThat(curl.body()).contains("42");
        // the console: its own origin, by IP literal or by localhost
        String self = "http://127.0.0.1:" + open.base.getPort();
        Reply console = send(open, "POST", "/api/v2/execute", Map.of("Origin", self, "Sec-Fetch-Site", "same-origin",
                "Content-Type", "application/json"), PISTON);
        assertThat(console.status()).as(console.text()).isEqualTo(200);
        String localhost = "localhost:" + open.base.getPort();
        Reply byName = send(open, "POST", "/v1/executions", Map.of("Host", localhost, "Origin", "http://" + localhost,
                "Content-Type", "application/json"), EXECUTION);
        assertThat(byName.status()).as(byName.text()).isEqualTo(200);
        assertThat(send(open, "GET", "/v1/runs", Map.of("Host", "[::1]:" + open.base.getPort()), null).status()).isEqualTo(200);
        assertThat(send(open, "GET", "/health", Map.of("Host", "console.localhost"), null).status()).isEqualTo(200);
        // a typed address (Sec-Fetch-Site: none); a page reading from another origin is not refused (no CORS headers:
        // the browser will not show it the answer)
        assertThat(send(open, "GET", "/", Map.of("Sec-Fetch-Site", "none"), null).status()).isEqualTo(200);
        assertThat(send(open, "GET", "/", Map.of("Origin", EVIL), null).status()).isEqualTo(200);
        assertThat(executions(open, null)).isEqualTo(before + 3);
    }

    @Test
    void aPageCannotUseUpTheLocalUsersRateLimit() {
        // with auth off every caller of an address shares its limit: a page's <img>s, a no-cors fetch (reads the
        // browser does not show it) would otherwise spend what curl, the SDKs and the console on this machine have
        try (TestServer limited = TestServer.builder().set("http.auth.keys", "").set("http.auth.enabled", "false")
                .set("http.rateLimitPerMinute", "3").start()) {
            for (int i = 0; i < 5; i++) {
                send(limited, "GET", "/v1/runs", Map.of("Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors",
                        "Sec-Fetch-Dest", "image"), null);
                send(limited, "GET", "/v1/runs", Map.of("Origin", EVIL, "Sec-Fetch-Site", "cross-site"), null);
            }
            Reply curl = send(limited, "GET", "/v1/runs", Map.of(), null);
            assertThat(curl.status()).as(curl.text()).isEqualTo(200);
            String self = "http://127.0.0.1:" + limited.base.getPort();
            Reply console = send(limited, "GET", "/v1/runs", Map.of("Origin", self, "Sec-Fetch-Site", "same-origin"), null);
            assertThat(console.status()).as(console.text()).isEqualTo(200);
            // the pages have a limit of their own, which they used up
            Reply page = send(limited, "GET", "/v1/runs", Map.of("Sec-Fetch-Site", "cross-site"), null);
            assertThat(page.status()).as(page.text()).isEqualTo(429);
        }
    }

    // ---------------------------------------------------------------- auth on: keys protect, Origin still counts

    @Test
    void withAKeyAForeignOriginIsStillRefusedAndTheHostNotChecked() {
        String key = "Bearer " + TestServer.ADMIN_KEY;
        long before = executions(keyed, TestServer.OPS_KEY);
        Reply post = send(keyed, "POST", "/v1/executions", Map.of("Authorization", key, "Origin", EVIL,
                "Content-Type", "application/json"), EXECUTION);
        assertCrossSite(post, EVIL);
        assertCrossSite(upgrade(keyed, Map.of("Authorization", key, "Origin", "null")), "null");
        // and a refused upgrade without a key says so in a problem too
        Reply noKey = upgrade(keyed, Map.of());
        assertThat(noKey.status()).isEqualTo(401);
        assertThat(noKey.text()).contains("WWW-Authenticate: Bearer", "https://codeagent.dev/problems/unauthorized");
        assertThat(executions(keyed, TestServer.OPS_KEY)).isEqualTo(before);

        // a name of its own (a proxy's, a DNS name): the key is what protects the server then
        Reply named = send(keyed, "POST", "/v1/executions", Map.of("Authorization", key, "Host", "codeagent.example",
                "Content-Type", "application/json"), EXECUTION);
        assertThat(named.status()).as(named.text()).isEqualTo(200);
        // a reading GET from another origin gets its answer, without CORS headers a browser will not show it
        Reply read = send(keyed, "GET", "/v1/runs", Map.of("Authorization", key, "Origin", EVIL), null);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.text()).doesNotContainIgnoringCase("Access-Control-Allow-Origin");
        assertThat(executions(keyed, TestServer.OPS_KEY)).isEqualTo(before + 1);
        assertThat(keyed.get("/metrics", TestServer.OPS_KEY).body())
                .contains("codeagent_http_rejected_total{reason=\"cross_site\"}");
    }

    // ---------------------------------------------------------------- helpers

    private static void assertCrossSite(Reply reply, String origin) {
        assertThat(reply.status()).as(reply.text()).isEqualTo(403);
        assertThat(reply.text()).contains("application/problem+json");
        assertThat(reply.body()).contains("https://codeagent.dev/problems/cross-site", "'" + origin + "'", "not for cross-site use");
    }

    private static long executions(TestServer s, String key) {
        String metrics = s.get("/metrics", key).body();
        Matcher m = Pattern.compile("(?m)^codeagent_executions_seconds_count\\{[^}]*} (\\d+)").matcher(metrics);
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(1));
        }
        return n;
    }

    private static double sessionsLive(TestServer s, String key) {
        Matcher m = Pattern.compile("(?m)^codeagent_sessions_live (\\S+)").matcher(s.get("/metrics", key).body());
        assertThat(m.find()).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /** What came back: the status and the head and body as text. */
    record Reply(int status, String text) {
        String body() {
            int i = text.indexOf("\r\n\r\n");
            return i < 0 ? "" : text.substring(i + 4);
        }
    }

    /** A request as a browser page would send it; {@code Host} is the server's own unless given. */
    private static Reply send(TestServer s, String method, String path, Map<String, String> headers, String body) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Host", "127.0.0.1:" + s.base.getPort());
        all.putAll(headers);
        all.put("Connection", "close");
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        if (body != null) {
            all.put("Content-Length", Integer.toString(content.length));
        }
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
        all.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("\r\n");
        RawHttp.Reply r = RawHttp.send(s.base, RawHttp.bytes(head.toString(), content), 60_000);
        return new Reply(r.status(), r.text());
    }

    /** A WebSocket upgrade of /api/v2/connect: its answer's head, and the body of a refusal. */
    private static Reply upgrade(TestServer s, Map<String, String> headers) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Host", "127.0.0.1:" + s.base.getPort());
        all.putAll(headers);
        all.put("Upgrade", "websocket");
        all.put("Connection", "Upgrade");
        all.put("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");
        all.put("Sec-WebSocket-Version", "13");
        StringBuilder head = new StringBuilder("GET " + PistonConnect.PATH + " HTTP/1.1\r\n");
        all.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
        head.append("\r\n");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(s.base.getHost(), s.base.getPort()), 5000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            while (!got.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                got.write(b);
            }
            String text = got.toString(StandardCharsets.ISO_8859_1);
            int status = text.startsWith("HTTP/") ? Integer.parseInt(text.substring(9, 12)) : 0;
            Matcher length = Pattern.compile("(?im)^content-length: *(\\d+)").matcher(text);
            if (status != 101 && length.find()) {
                got.write(in.readNBytes(Integer.parseInt(length.group(1))));
            }
            return new Reply(status, got.toString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
