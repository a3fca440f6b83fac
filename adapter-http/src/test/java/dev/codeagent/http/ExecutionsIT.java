package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("slow")
class ExecutionsIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void runsPythonAndAnswersWithTheFieldsOfExecJson() {
        HttpResponse<String> r = server.post("/v1/executions", TestServer.EXEC_KEY, "{\"language\":\"python\",\"code\":\"print(6*7)\"}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode e = TestServer.json(r);
        List<String> fields = new ArrayList<>();
        e.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).contains("outcome", "exitCode", "signal", "stdout", "stderr", "stdoutTruncated", "stderrTruncated",
                "wallTimeMs", "cpuTimeMs", "peakMemoryBytes", "sandbox", "isolation");
        // exactly the execution view's fields, in order: the golden file `codeagent exec --json` is compared with too
        List<String> view = new ArrayList<>();
        dev.codeagent.application.view.Goldens.read(dev.codeagent.application.view.Goldens.EXECUTION_OK).fieldNames()
                .forEachRemaining(view::add);
        assertThat(fields).containsExactlyElementsOf(view);
        assertThat(e.get("outcome").asText()).isEqualTo("OK");
        assertThat(e.get("exitCode").asInt()).isZero();
        assertThat(e.get("stdout").asText()).isEqualTo("42\n");
        assertThat(e.get("sandbox").asText()).isEqualTo("process");
        assertThat(e.get("isolation").isArray()).isTrue();
        assertThat(e.get("isolation").toString()).contains("network-none");
    }

    @Test
    void passesStdinArgumentsAndFiles() {
        String code = "import sys\\nprint(sys.stdin.read().strip(), sys.argv[1:], open('data/in.txt').read())";
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"py\",\"code\":\"" + code
                + "\",\"stdin\":\"from-stdin\",\"args\":[\"a\",\"b c\"],\"files\":{\"data/in.txt\":\"from-file\"}}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(TestServer.json(r).get("stdout").asText()).isEqualTo("from-stdin ['a', 'b c'] from-file\n");
    }

    @Test
    void stopsAProgramAtItsTimeLimit() {
        long t0 = System.nanoTime();
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"while True: pass\",\"limits\":{\"timeoutMs\":500}}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(TestServer.json(r).get("outcome").asText()).isEqualTo("TIME_LIMIT");
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5000);
    }

    @Test
    void reportsTheProgramsOwnFailureAsAResultNotAnError() {
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"raise SystemExit(3)\"}");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode e = TestServer.json(r);
        assertThat(e.get("outcome").asText()).isEqualTo("RUNTIME_ERROR");
        assertThat(e.get("exitCode").asInt()).isEqualTo(3);
    }

    @Test
    void refusesAnUnknownLanguageListingTheSupportedOnes() {
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"cobol\",\"code\":\"x\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
        JsonNode p = TestServer.json(r);
        assertThat(p.get("type").asText()).isEqualTo("https://codeagent.dev/problems/unsupported-language");
        assertThat(p.get("errors").get(0).get("field").asText()).isEqualTo("language");
        assertThat(p.get("detail").asText()).contains("python");
        assertThat(p.get("supported").toString()).contains("python");
    }

    @Test
    void namesEveryInvalidField() {
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"limits\":{\"timeoutMs\":0,\"memoryBytes\":1024}}");
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode p = TestServer.json(r);
        assertThat(p.get("type").asText()).isEqualTo("https://codeagent.dev/problems/validation");
        assertThat(p.get("title").asText()).isNotBlank();
        assertThat(p.get("status").asInt()).isEqualTo(400);
        List<String> fields = new ArrayList<>();
        p.get("errors").forEach(e -> fields.add(e.get("field").asText()));
        assertThat(fields).containsExactlyInAnyOrder("code", "limits.timeoutMs", "limits.memoryBytes");
    }

    @Test
    void refusesALimitAboveTheConfiguredMaximum() {
        HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"print(1)\",\"limits\":{\"timeoutMs\":3600000}}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(r).get("detail").asText()).contains("http.maxTimeout");
    }

    @Test
    void reportsReadinessWithARealSandboxProbe() {
        HttpResponse<String> r = server.get("/health", null);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode h = TestServer.json(r);
        assertThat(h.get("status").asText()).isEqualTo("UP");
        assertThat(h.get("ready").asBoolean()).isTrue();
        assertThat(h.get("sandbox").get("tier").asText()).isEqualTo("process");
        assertThat(h.get("sandbox").get("ok").asBoolean()).isTrue();
        assertThat(h.get("store").get("ok").asBoolean()).isTrue();
    }

    @Test
    void exposesPrometheusMetrics() {
        server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\"}");
        server.post("/v1/executions", null, "{}");
        HttpResponse<String> r = server.get("/metrics", TestServer.OPS_KEY);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(r.body())
                .contains("codeagent_executions_seconds_count{outcome=\"OK\",via=\"api\"}")
                .contains("codeagent_executions_seconds_bucket{")
                .contains("codeagent_http_requests_seconds_bucket{")
                .contains("codeagent_http_rejected_total{reason=\"unauthorized\"}")
                .contains("codeagent_sandbox_executions_max")
                .contains("codeagent_runs_active");
    }
}
