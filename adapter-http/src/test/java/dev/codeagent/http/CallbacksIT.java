package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A submission's {@code callbackUrl} gets the submission once it is done, signed with the key's secret, and again after
 * a failure; a host {@code http.callbackHosts} does not name (none by default) is refused before anything runs. The
 * receiver is a real HTTP server on loopback.
 */
@Tag("slow")
class CallbacksIT {

    private static final String SECRET = "callback-secret-0123456789abcdef";

    private HttpServer receiver;
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private final List<String> signatures = new CopyOnWriteArrayList<>();
    private final AtomicInteger failFirst = new AtomicInteger();

    @BeforeEach
    void listen() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hook", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            int status = failFirst.getAndDecrement() > 0 ? 500 : 204;
            if (status == 204) {
                bodies.add(body);
                signatures.add(exchange.getRequestHeaders().getFirst("X-Codeagent-Signature"));
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        receiver.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
    }

    /** Keys as objects in a config file: the admin key with a callback secret, the exec key without. */
    private static TestServer.Builder withKeys(String callbackHosts) {
        return TestServer.builder().unset("http.auth.keys").yaml("http:\n  callbackHosts: [" + callbackHosts + "]\n  auth:\n    keys:\n"
                + "      - {name: admin, sha256: " + ApiKeys.sha256Hex(TestServer.ADMIN_KEY) + ", callbackSecret: " + SECRET + "}\n"
                + "      - {name: exec, sha256: " + ApiKeys.sha256Hex(TestServer.EXEC_KEY) + ", endpoints: [executions]}\n");
    }

    private TestServer.Builder server() {
        return withKeys("'127.0.0.1:" + receiver.getAddress().getPort() + "'");
    }

    private String hook() {
        return "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    }

    @Test
    void theDoneSubmissionIsPostedSignedAndTriedAgainAfterAFailure() throws Exception {
        failFirst.set(1);
        try (TestServer s = server().start()) {
            HttpResponse<String> r = s.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(6*7)\","
                    + "\"wait\":false,\"callbackUrl\":\"" + hook() + "\"}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            String id = TestServer.json(r).get("id").asText();
            for (int i = 0; i < 150 && bodies.isEmpty(); i++) {
                Thread.sleep(100);
            }
            assertThat(bodies).as("delivered once, on the second try").hasSize(1);
            assertThat(failFirst.get()).as("the first try was answered 500, the second 204").isEqualTo(-1);
            JsonNode posted = Views.MAPPER.readTree(bodies.get(0));
            assertThat(posted.get("id").asText()).isEqualTo(id);
            assertThat(posted.get("status").asText()).isEqualTo("DONE");
            assertThat(posted.get("result").get("stdout").asText()).isEqualTo("42\n");
            assertThat(signatures.get(0)).isEqualTo("sha256=" + Callbacks.sign(SECRET.getBytes(StandardCharsets.UTF_8), bodies.get(0)));
        }
    }

    @Test
    void aDoneJudgementIsPostedWithItsVerdict() throws Exception {
        try (TestServer s = server().start()) {
            HttpResponse<String> r = s.post("/v1/judgements", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":"
                    + "\"def f(x):\\n    return x\\n\",\"tests\":\"assert f(1) == 2\",\"wait\":false,\"callbackUrl\":\"" + hook() + "\"}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            String id = TestServer.json(r).get("id").asText();
            for (int i = 0; i < 150 && bodies.isEmpty(); i++) {
                Thread.sleep(100);
            }
            assertThat(bodies).hasSize(1);
            JsonNode posted = Views.MAPPER.readTree(bodies.get(0));
            assertThat(posted.get("id").asText()).isEqualTo(id);
            assertThat(posted.get("links").get("self").asText()).isEqualTo("/v1/judgements/" + id);
            assertThat(posted.get("result").get("verdict").get("kind").asText()).isEqualTo("WRONG_ANSWER");
            assertThat(posted.get("result").get("calls").toString()).contains("f(1) returned 1");
            assertThat(signatures.get(0)).isEqualTo("sha256=" + Callbacks.sign(SECRET.getBytes(StandardCharsets.UTF_8), bodies.get(0)));
        }
    }

    @Test
    void aHostNotAllowedIsRefusedAndNothingRuns() {
        try (TestServer s = withKeys("").start()) {
            HttpResponse<String> r = s.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\","
                    + "\"wait\":false,\"callbackUrl\":\"" + hook() + "\"}");
            assertThat(r.statusCode()).isEqualTo(400);
            JsonNode problem = TestServer.json(r);
            assertThat(problem.get("errors").get(0).get("field").asText()).isEqualTo("callbackUrl");
            assertThat(problem.get("detail").asText()).contains("http.callbackHosts").contains("none by default");
        }
    }

    @Test
    void aKeyWithoutASecretAndASynchronousRequestCannotAskForCallbacks() {
        try (TestServer s = server().start()) {
            HttpResponse<String> noSecret = s.post("/v1/executions", TestServer.EXEC_KEY, "{\"language\":\"python\",\"code\":\"print(1)\","
                    + "\"wait\":false,\"callbackUrl\":\"" + hook() + "\"}");
            assertThat(noSecret.statusCode()).isEqualTo(400);
            assertThat(TestServer.json(noSecret).get("detail").asText()).contains("no callbackSecret");
            HttpResponse<String> sync = s.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\","
                    + "\"callbackUrl\":\"" + hook() + "\"}");
            assertThat(sync.statusCode()).isEqualTo(400);
            assertThat(TestServer.json(sync).get("detail").asText()).contains("wait");
        }
    }
}
