package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attacks a stranger could make on the API, over real sockets: hostile file names, trickled heads and
 * bodies, request smuggling, a flood of event streams, label explosion in the metrics. Each must end
 * in a quick 4xx (or a closed connection), never a 5xx, a hang, or unbounded growth.
 */
@Tag("slow")
class HostileRequestsIT {

    private static final String AUTH = "Authorization: Bearer " + TestServer.ADMIN_KEY + "\r\n";
    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder()
                .set("http.requestTimeout", "3s")
                .set("http.maxEventStreams", "2")
                .generator(request -> {
                    try {
                        // a run that stays in progress long enough to hold event streams open
                        Thread.sleep(20_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "```python\nprint(1)\n```";
                })
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> execute(String filesJson) {
        return server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\",\"files\":" + filesJson + "}");
    }

    private static void assertInvalidField(HttpResponse<String> r, String field, String messagePart) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode errors = TestServer.json(r).get("errors");
        assertThat(errors.get(0).get("field").asText()).isEqualTo(field);
        assertThat(errors.get(0).get("message").asText()).contains(messagePart);
    }

    @Test
    void refusesFileNamesTheSandboxCouldNotCreateWithA400NamingTheField() {
        // 2000 directories deep made the domain's name pattern overflow the stack: a 500
        String deep = String.join("/", java.util.Collections.nCopies(2000, "a"));
        assertInvalidField(execute("{\"" + deep + "\":\"x\"}"), "files", "longer than 1024");
        // accepted before, then failed in the sandbox (retried, 200 with SANDBOX_ERROR)
        assertInvalidField(execute("{\"" + "a".repeat(300) + "\":\"x\"}"), "files", "longer than 255");
        assertInvalidField(execute("{\"a\":\"x\",\"a/b\":\"y\"}"), "files", "both a file and the directory");
        assertInvalidField(execute("{\"a\\u0000b\":\"x\"}"), "files", "only letters");
        String many = IntStream.range(0, 1001).mapToObj(i -> "\"f" + i + "\":\"\"").collect(Collectors.joining(",", "{", "}"));
        assertInvalidField(execute(many), "files", "at most 1000 files");
        HttpResponse<String> piston = server.post("/api/v2/execute", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"files\":[{\"content\":\"print(1)\"},{\"name\":\"" + deep + "\",\"content\":\"x\"}]}");
        assertInvalidField(piston, "files", "longer than 1024");
        // ordinary nested names still work
        HttpResponse<String> ok = server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\","
                + "\"code\":\"print(open('pkg/data.txt').read())\",\"files\":{\"pkg/data.txt\":\"hi\"}}");
        assertThat(TestServer.json(ok).get("stdout").asText()).as(ok.body()).isEqualTo("hi\n");
    }

    @Test
    void refusesAnArgumentTheKernelWouldRefuseWithA400NamingIt() {
        // over MAX_ARG_STRLEN (128 KiB): accepted before, then execve failed in the sandbox (200 SANDBOX_ERROR)
        String big = "a".repeat(200_000);
        assertInvalidField(server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\","
                + "\"args\":[\"x\",\"" + big + "\"]}"), "args[1]", "bytes per argument");
        assertInvalidField(server.post("/api/v2/execute", TestServer.ADMIN_KEY, "{\"language\":\"python\","
                + "\"files\":[{\"content\":\"print(1)\"}],\"args\":[\"" + big + "\"]}"), "args[0]", "bytes per argument");
    }

    @Test
    void answersExtremeNumbersWithA400NamingTheFieldAndNoParserInternals() {
        for (String value : List.of("9223372036854775808", "1e309", "-1", "NaN", "9".repeat(1500))) {
            HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                    "{\"language\":\"python\",\"code\":\"print(1)\",\"limits\":{\"timeoutMs\":" + value + "}}");
            assertThat(r.statusCode()).as(value + ": " + r.body()).isEqualTo(400);
            assertThat(TestServer.json(r).get("detail").asText()).as(r.body()).startsWith("limits")
                    .doesNotContain("StreamReadConstraints").doesNotContain("JsonReadFeature").doesNotContain("`");
        }
    }

    @Test
    void answersAHugePistonVersionSelectorWithA400() {
        // "1.1.1…" of 60 000 characters overflowed the stack in the selector pattern: a 500
        HttpResponse<String> r = server.post("/api/v2/execute", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"version\":\""
                + "1.".repeat(30_000) + "1\",\"files\":[{\"content\":\"print(1)\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(TestServer.json(r).get("message").asText()).contains("runtime is unknown");
    }

    @Test
    void tellsStrangersWhetherTheServerIsReadyButNotWhyNot() {
        JsonNode anonymous = TestServer.json(server.get("/health", null));
        assertThat(anonymous.get("ready").asBoolean()).isTrue();
        assertThat(anonymous.get("sandbox").has("detail")).isFalse();
        assertThat(anonymous.get("store").has("detail")).isFalse();
        JsonNode tenant = TestServer.json(server.get("/health", TestServer.EXEC_KEY));
        assertThat(tenant.get("sandbox").has("detail")).as("a key that is not an operator's").isFalse();
        JsonNode operator = TestServer.json(server.get("/health", TestServer.OPS_KEY));
        assertThat(operator.get("sandbox").get("detail").asText()).isEqualTo("ok");
    }

    @Test
    void refusesANulInTaskTextsBeforeStartingARun() {
        HttpResponse<String> r = server.post("/v1/runs", TestServer.ADMIN_KEY, "{\"prompt\":\"add\",\"tests\":\"assert 1\\u0000\"}");
        assertInvalidField(r, "tests", "NUL");
    }

    @Test
    void answersABodyTrickledBelowTheMinimumRateWith408NotA500() throws IOException {
        String head = "POST /v1/executions HTTP/1.1\r\nHost: x\r\n" + AUTH + "Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n";
        String got = trickle(head, " ", 300, 15_000);
        assertThat(got).startsWith("HTTP/1.1 408").contains("request-timeout").doesNotContain("internal");
    }

    @Test
    void answersABodyFastEnoughForTheMinimumRateButTooSlowOverallWith408() throws IOException {
        // 700 bytes every 300 ms passes Jetty's 1 KiB/s minimum; the whole body must still arrive within 3s
        long t0 = System.nanoTime();
        String head = "POST /api/v2/execute HTTP/1.1\r\nHost: x\r\n" + AUTH + "Content-Length: 1000000\r\n\r\n";
        String got = trickle(head, " ".repeat(700), 300, 20_000);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(got).startsWith("HTTP/1.1 408").contains("http.requestTimeout");
        assertThat(millis).isLessThan(8000);
    }

    @Test
    void closesAConnectionWhoseHeadersTrickleIn() throws IOException {
        long t0 = System.nanoTime();
        String got = trickle("GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ", "a", 300, 15_000);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        // the deadline is http.requestTimeout (3s), checked every 750 ms
        assertThat(millis).as("closed after %d ms; got %s", millis, got).isLessThan(6000);
        assertThat(got).doesNotContain("200 OK");
    }

    @Test
    void answersBrokenChunkingWithAClientError() {
        RawHttp.Reply r = RawHttp.send(server.base, ("POST /v1/executions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + AUTH
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\nZZ\r\n")
                .getBytes(StandardCharsets.ISO_8859_1), 10_000);
        // Jetty reports a broken chunk to the reader as an early end of the body
        assertThat(r.status()).as(r.text()).isIn(400, 408);
        assertThat(r.text()).contains("application/problem+json").doesNotContain("internal");
        assertThat(r.millis()).isLessThan(2000);
    }

    @Test
    void refusesSmuggledRequestsAndAnswersOnlyOnce() {
        String smuggled = "GET /metrics HTTP/1.1\r\nHost: x\r\n" + AUTH + "\r\n";
        for (String framing : List.of("Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
                "Content-Length: 0\r\nContent-Length: " + (5 + smuggled.length()) + "\r\n",
                "Transfer-Encoding: xchunked\r\n",
                "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n")) {
            RawHttp.Reply r = RawHttp.send(server.base, ("POST /v1/executions HTTP/1.1\r\nHost: x\r\n" + AUTH
                    + "Content-Type: application/json\r\n" + framing + "\r\n0\r\n\r\n" + smuggled).getBytes(StandardCharsets.ISO_8859_1),
                    10_000);
            assertThat(r.status()).as(framing + r.text()).isEqualTo(400);
            assertThat(r.text().split("HTTP/1.1 ", -1)).as("one answer only: " + r.text()).hasSize(2);
            assertThat(r.text()).doesNotContain("jvm_");
        }
    }

    @Test
    void boundsEventStreamsAndRefusesTheNextOneAtOnce() throws Exception {
        HttpResponse<String> started = server.post("/v1/runs", TestServer.ADMIN_KEY, "{\"prompt\":\"print one\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String id = TestServer.json(started).get("id").asText();
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                open.add(openStream(id));
            }
            RawHttp.Reply third = RawHttp.send(server.base, ("GET /v1/runs/" + id + "/events HTTP/1.0\r\n" + AUTH + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1), 5000);
            assertThat(third.status()).as(third.text()).isEqualTo(503);
            assertThat(third.text()).contains("Retry-After").contains("maxEventStreams");
            assertThat(third.millis()).isLessThan(2000);
            // a stream for a run that does not exist takes no place and says so
            RawHttp.Reply missing = RawHttp.send(server.base, ("GET /v1/runs/nosuchrun/events HTTP/1.0\r\n" + AUTH + "\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1), 5000);
            assertThat(missing.status()).isEqualTo(404);
        } finally {
            server.delete("/v1/runs/" + id, TestServer.ADMIN_KEY);
            for (Socket s : open) {
                s.close();
            }
        }
    }

    @Test
    void keepsMetricLabelsBoundedWhateverRoutesAndMethodsAreSent() {
        for (int i = 0; i < 25; i++) {
            RawHttp.send(server.base, ("GET /probe-" + i + " HTTP/1.0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), 5000);
            RawHttp.send(server.base, ("M" + i + "X /probe HTTP/1.0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), 5000);
            server.get("/v1/runs/unknown" + i, TestServer.ADMIN_KEY);
        }
        String scrape = server.get("/metrics", TestServer.OPS_KEY).body();
        List<String> series = scrape.lines().filter(l -> l.startsWith("codeagent_http_requests_seconds_count")).toList();
        assertThat(series).noneMatch(l -> l.contains("probe") || l.contains("unknown") || l.contains("M1X"));
        assertThat(series.size()).as(String.join("\n", series)).isLessThan(20);
    }

    @Test
    void sendsSafeHeadersAndNoCorsAndAcceptsOddButValidBearerSpelling() {
        RawHttp.Reply r = RawHttp.send(server.base, ("GET /v1/runs HTTP/1.0\r\nAuthorization: bearer    " + TestServer.ADMIN_KEY
                + "  \r\nOrigin: http://evil.example\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), 5000);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        String head = r.text().substring(0, r.text().indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT);
        assertThat(head).contains("x-content-type-options: nosniff").contains("cache-control: no-store")
                .doesNotContain("access-control-allow").doesNotContain("server:").doesNotContain("x-powered-by");
        RawHttp.Reply nonAscii = RawHttp.send(server.base, ("GET /v1/runs HTTP/1.0\r\nAuthorization: Bearer k\u00e9y\u00ff\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1), 5000);
        assertThat(nonAscii.status()).isEqualTo(401);
        RawHttp.Reply longKey = RawHttp.send(server.base, ("GET /v1/runs HTTP/1.0\r\nAuthorization: Bearer " + "k".repeat(6000)
                + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), 5000);
        assertThat(longKey.status()).isEqualTo(401);
        assertThat(longKey.text()).contains("application/problem+json").doesNotContain("Exception");
    }

    @Test
    void boundsOpenConnectionsSoAFloodCannotUseUpFileDescriptors() throws IOException {
        // client and server ends share this JVM's descriptors
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        Assumptions.assumeTrue(os instanceof com.sun.management.UnixOperatingSystemMXBean
                && ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount() >= 4 * ApiServer.MAX_CONNECTIONS,
                "needs a higher open-files limit");
        List<Socket> flood = new ArrayList<>();
        try {
            for (int i = 0; i < ApiServer.MAX_CONNECTIONS + 50; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(server.base.getHost(), server.base.getPort()), 5000);
                flood.add(s);
            }
            // the kernel's backlog takes the connection, but Jetty does not accept it while the flood lasts
            assertThatNoAnswerWithin(700);
            for (int i = 0; i < 100; i++) {
                flood.remove(flood.size() - 1).close();
            }
            RawHttp.Reply after = RawHttp.send(server.base, "GET /health HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), 10_000);
            assertThat(after.status()).isEqualTo(200);
        } finally {
            for (Socket s : flood) {
                s.close();
            }
        }
    }

    private static void assertThatNoAnswerWithin(int millis) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(server.base.getHost(), server.base.getPort()), 5000);
            s.setSoTimeout(millis);
            s.getOutputStream().write("GET /health HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            try {
                int n = s.getInputStream().read();
                throw new AssertionError("answered although over the connection limit (read " + n + ")");
            } catch (SocketTimeoutException expected) {
                // not accepted: as intended
            }
        }
    }

    /** Opens an event stream and waits for its first bytes, leaving it open. */
    private static Socket openStream(String id) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(server.base.getHost(), server.base.getPort()), 5000);
        s.setSoTimeout(5000);
        s.getOutputStream().write(("GET /v1/runs/" + id + "/events HTTP/1.1\r\nHost: x\r\n" + AUTH + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        byte[] buf = new byte[512];
        int n = s.getInputStream().read(buf);
        assertThat(new String(buf, 0, Math.max(n, 0), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200");
        return s;
    }

    /** Sends the head, then one drip every gap ms until the server answers or closes; returns what it said. */
    private static String trickle(String head, String drip, long gapMillis, long maxMillis) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(server.base.getHost(), server.base.getPort()), 5000);
            s.setSoTimeout((int) gapMillis);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            long end = System.nanoTime() + maxMillis * 1_000_000;
            StringBuilder got = new StringBuilder();
            byte[] buf = new byte[4096];
            while (System.nanoTime() < end) {
                try {
                    out.write(drip.getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (IOException e) {
                    return got.toString();
                }
                try {
                    int n = in.read(buf);
                    if (n < 0) {
                        return got.toString();
                    }
                    got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                } catch (SocketTimeoutException e) {
                    continue;
                } catch (IOException e) {
                    return got.toString();
                }
            }
            throw new AssertionError("the server kept the connection open for " + maxMillis + " ms; got " + got);
        }
    }
}
