package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile and broken requests over a raw socket: each gets a 4xx problem document quickly, never a
 * 5xx, never a hang, never a stack trace.
 */
@Tag("slow")
class MalformedInputIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder()
                .set("http.maxBodyBytes", "64k")
                .set("http.maxHeaderBytes", "4k")
                .set("http.requestTimeout", "1s")
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static Stream<Arguments> cases() {
        String auth = "Authorization: Bearer " + TestServer.ADMIN_KEY + "\r\n";
        return Stream.of(
                post("broken JSON", auth, "{\"language\": \"python\", \"code\": ", 400, "malformed-json"),
                post("trailing garbage", auth, "{\"language\":\"python\",\"code\":\"print(1)\"} xyz", 400, "malformed-json"),
                post("number for a string", auth, "{\"language\":\"python\",\"code\":5}", 400, "validation"),
                post("string for a number", auth, "{\"language\":\"python\",\"code\":\"x\",\"limits\":{\"timeoutMs\":\"5\"}}", 400,
                        "validation"),
                post("float for a whole number", auth, "{\"language\":\"python\",\"code\":\"x\",\"limits\":{\"timeoutMs\":1.5}}", 400,
                        "validation"),
                post("string for an object", auth, "{\"language\":\"python\",\"code\":\"x\",\"limits\":\"big\"}", 400, "validation"),
                post("string for an array", auth, "{\"language\":\"python\",\"code\":\"x\",\"args\":\"-v\"}", 400, "validation"),
                post("unknown field", auth, "{\"language\":\"python\",\"code\":\"x\",\"network\":true}", 400, "validation"),
                post("duplicate field", auth, "{\"language\":\"python\",\"code\":\"x\",\"code\":\"y\"}", 400, "malformed-json"),
                post("array body", auth, "[1,2,3]", 400, "validation"),
                post("null body", auth, "null", 400, "validation"),
                post("empty body", auth, "", 400, "malformed-json"),
                post("NUL in the code", auth, "{\"language\":\"python\",\"code\":\"print(1)\\u0000\"}", 400, "validation"),
                post("file escaping the work dir", auth, "{\"language\":\"python\",\"code\":\"x\",\"files\":{\"../../etc/x\":\"y\"}}",
                        400, "validation"),
                post("deep nesting", auth, "{\"language\":\"python\",\"code\":\"x\",\"args\":" + "[".repeat(20_000) + "]".repeat(20_000)
                        + "}", 400, "validation"),
                postBytes("invalid UTF-8", auth, concat("{\"language\":\"python\",\"code\":\"print('",
                        new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF}, "')\"}"), 400, "invalid-encoding"),
                postBytes("overlong UTF-8 encoding of a slash", auth, concat("{\"language\":\"python\",\"code\":\"",
                        new byte[] {(byte) 0xC0, (byte) 0xAF}, "\"}"), 400, "invalid-encoding"),
                raw("not JSON content type", "POST /v1/executions HTTP/1.0\r\n" + auth + "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n",
                        "{}".getBytes(StandardCharsets.UTF_8), 415, "unsupported-media-type"),
                raw("body over the cap", "POST /v1/executions HTTP/1.0\r\n" + auth + "Content-Type: application/json\r\nContent-Length: "
                        + (200 * 1024) + "\r\n\r\n", new byte[200 * 1024], 413, "body-too-large"),
                raw("body over the cap without a length", "POST /v1/executions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + auth
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
                        concat(Integer.toHexString(100 * 1024) + "\r\n", new byte[100 * 1024], "\r\n0\r\n\r\n"), 413, "body-too-large"),
                raw("headers too large", "GET /health HTTP/1.0\r\nX-Junk: " + "a".repeat(16 * 1024) + "\r\n\r\n", new byte[0], 431,
                        "headers-too-large"),
                raw("URI too long", "GET /v1/runs?x=" + "a".repeat(16 * 1024) + " HTTP/1.0\r\n\r\n", new byte[0], 414, null),
                raw("garbage request line", "GARBAGE\r\n\r\n", new byte[0], 400, null),
                raw("unknown method", "BREW /v1/executions HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 405, "method-not-allowed"),
                raw("wrong method", "PUT /v1/executions HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 405, "method-not-allowed"),
                raw("TRACE", "TRACE /v1/runs HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 405, "method-not-allowed"),
                // the API's namespaces are closed by default: no key, no answer about what exists there
                raw("unknown API route without a key", "GET /v1/nothing-here HTTP/1.0\r\n\r\n", new byte[0], 401, "unauthorized"),
                raw("unknown API route", "GET /v1/nothing-here HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 404, "not-found"),
                raw("unknown top-level route", "GET /wp-admin.php HTTP/1.0\r\n\r\n", new byte[0], 404, "not-found"),
                raw("encoded NUL in a run id", "GET /v1/runs/%00 HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 400, "bad-request"),
                raw("path traversal in a run id", "GET /v1/runs/..%2F..%2Fetc HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 404,
                        "not-found"),
                raw("bad Last-Event-ID", "GET /v1/runs/abc/events HTTP/1.0\r\n" + auth + "Last-Event-ID: yesterday\r\n\r\n", new byte[0],
                        400, "validation"),
                raw("bad page size", "GET /v1/runs?limit=lots HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 400, "validation"),
                raw("page size out of range", "GET /v1/runs?limit=100000 HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 400, "validation"),
                raw("paging from an unknown run", "GET /v1/runs?before=nope HTTP/1.0\r\n" + auth + "\r\n", new byte[0], 400,
                        "validation"),
                raw("malformed Authorization", "GET /v1/runs HTTP/1.0\r\nAuthorization: Bearer\r\n\r\n", new byte[0], 401, "unauthorized"),
                piston("piston body not JSON", auth, "hello", 400, "malformed-json"),
                piston("piston wrong type", auth, "{\"language\":\"python\",\"files\":\"print(1)\",\"x\":1}", 400, "validation"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void answersWithAClientErrorQuickly(String name, byte[] request, int expected, String problemType) {
        RawHttp.Reply reply = RawHttp.send(server.base, request, 10_000);
        assertThat(reply.status()).as(reply.text()).isEqualTo(expected);
        assertThat(reply.millis()).as("answered in time").isLessThan(5000);
        assertThat(reply.text()).contains("application/problem+json");
        assertThat(reply.text()).doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("<html");
        if (problemType != null) {
            assertThat(reply.body()).contains("\"type\":\"https://codeagent.dev/problems/" + problemType + "\"");
        }
    }

    @Test
    void namesTheFieldOfAWrongType() {
        var r = server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"x\",\"limits\":{\"timeoutMs\":\"5\"}}");
        assertThat(TestServer.json(r).get("errors").get(0).get("field").asText()).isEqualTo("limits.timeoutMs");
        var u = server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"x\",\"netwrk\":true}");
        assertThat(TestServer.json(u).get("errors").get(0).get("field").asText()).isEqualTo("netwrk");
        assertThat(TestServer.json(u).get("detail").asText()).contains("code").contains("limits");
    }

    @Test
    void cutsOffAClientThatStopsSendingItsBody() {
        byte[] partial = ("POST /v1/executions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TestServer.ADMIN_KEY
                + "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"lang").getBytes(StandardCharsets.UTF_8);
        RawHttp.Reply reply = RawHttp.send(server.base, partial, 10_000);
        assertThat(reply.millis()).isLessThan(6000);
        assertThat(reply.status()).isIn(0, 408, 400);
    }

    @Test
    void cutsOffAClientThatStopsSendingItsHeaders() {
        byte[] partial = "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.UTF_8);
        RawHttp.Reply reply = RawHttp.send(server.base, partial, 10_000);
        assertThat(reply.millis()).isLessThan(6000);
        assertThat(reply.status()).isIn(0, 408, 400);
    }

    private static Arguments post(String name, String auth, String json, int status, String type) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return raw(name, "POST /v1/executions HTTP/1.0\r\n" + auth + "Content-Type: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n", body, status, type);
    }

    private static Arguments piston(String name, String auth, String json, int status, String type) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return raw(name, "POST /api/v2/execute HTTP/1.0\r\n" + auth + "Content-Length: " + body.length + "\r\n\r\n", body, status,
                type);
    }

    private static Arguments postBytes(String name, String auth, byte[] body, int status, String type) {
        return raw(name, "POST /v1/executions HTTP/1.0\r\n" + auth + "Content-Type: application/json\r\nContent-Length: " + body.length
                + "\r\n\r\n", body, status, type);
    }

    private static Arguments raw(String name, String head, byte[] body, int status, String type) {
        return Arguments.of(name, RawHttp.bytes(head, body), status, type);
    }

    private static byte[] concat(String a, byte[] b, String c) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] z = c.getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[x.length + b.length + z.length];
        System.arraycopy(x, 0, all, 0, x.length);
        System.arraycopy(b, 0, all, x.length, b.length);
        System.arraycopy(z, 0, all, x.length + b.length, z.length);
        return all;
    }
}
