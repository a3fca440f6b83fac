package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.RecordComponent;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI description at {@code /openapi.json} against the running server: every registered route
 * is described and nothing else is, the request schemas name exactly the fields the server reads, and
 * real answers carry exactly the fields their schemas promise (every required one, no undeclared one).
 */
class ApiDescriptionIT {

    private static TestServer server;
    private static JsonNode doc;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
        HttpResponse<String> r = server.get("/openapi.json", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        doc = TestServer.json(r);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void describesEveryRegisteredRouteAndNoOther() {
        assertThat(doc.get("openapi").asText()).isEqualTo("3.1.0");
        Set<String> described = new TreeSet<>();
        doc.get("paths").fields().forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(method -> {
            if (Set.of("get", "put", "post", "delete", "patch", "head", "options").contains(method)) {
                described.add(method.toUpperCase(Locale.ROOT) + " " + p.getKey());
            }
        }));
        assertThat(described).containsExactlyInAnyOrderElementsOf(new TreeSet<>(server.server.routes()));
    }

    @Test
    void requestSchemasNameExactlyTheFieldsTheServerReads() {
        assertThat(properties("ExecutionRequest")).isEqualTo(components(ApiRequests.ExecutionBody.class));
        assertThat(properties("RunRequest")).isEqualTo(components(ApiRequests.RunBody.class));
        assertThat(properties("BatchRequest")).isEqualTo(components(ApiRequests.BatchBody.class));
        assertThat(properties("PistonExecuteRequest")).isEqualTo(components(PistonApi.ExecuteBody.class));
        assertThat(properties("PistonFile")).isEqualTo(components(PistonApi.FileBody.class));
        assertThat(properties("JudgementRequest")).isEqualTo(components(JudgementRoutes.JudgementBody.class));
        assertThat(properties("JudgeCase")).isEqualTo(components(JudgementRoutes.CaseBody.class));
        assertThat(properties("JudgementBatchRequest")).isEqualTo(components(JudgementRoutes.BatchBody.class));
        assertThat(properties("EvaluationRequest")).isEqualTo(components(EvaluationRoutes.EvaluationBody.class));
    }

    @Test
    void realAnswersCarryExactlyTheFieldsOfTheirSchemas() {
        conforms(json(server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\"}"), 200),
                "Execution");
        JsonNode piston = json(server.post("/api/v2/execute", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"version\":\"*\",\"files\":[{\"content\":\"exit(3)\"}]}"), 200);
        conforms(piston, "PistonExecuteResponse");
        conforms(piston.get("run"), "PistonStage");
        json(server.get("/v1/languages", TestServer.ADMIN_KEY), 200).forEach(l -> conforms(l, "Language"));
        json(server.get("/api/v2/runtimes", TestServer.ADMIN_KEY), 200).forEach(l -> conforms(l, "PistonRuntime"));
        json(server.get("/api/v2/packages", TestServer.ADMIN_KEY), 200).forEach(l -> conforms(l, "PistonPackage"));
        conforms(json(server.post("/v1/executions", TestServer.ADMIN_KEY, "{\"language\":\"python\"}"), 400), "Problem");
        conforms(json(server.post("/api/v2/execute", TestServer.ADMIN_KEY, "{\"language\":\"cobol\",\"files\":[]}"), 400), "Problem");
        conforms(json(server.get("/v1/runs", TestServer.ADMIN_KEY), 200), "RunPage");
        conforms(json(server.get("/health", null), 200), "Health");
        JsonNode submitted = json(server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"python\",\"code\":\"print(1)\",\"wait\":false}"), 202);
        conforms(submitted, "Submission");
        JsonNode batch = json(server.post("/v1/executions/batch", TestServer.ADMIN_KEY,
                "{\"submissions\":[{\"language\":\"python\",\"code\":\"print(1)\"}]}"), 202);
        conforms(batch, "BatchAccepted");
        JsonNode page = json(server.get("/v1/executions?ids=" + submitted.get("id").asText() + ",ex_unknown", TestServer.ADMIN_KEY), 200);
        conforms(page, "SubmissionPage");
        page.get("executions").forEach(e -> conforms(e, "Submission"));
    }

    @Test
    void judgementsCarryExactlyTheFieldsOfTheirSchemas() {
        String wrong = "{\"language\":\"python\",\"code\":\"def f(x):\\n    return x + 1\\n\",\"tests\":\"assert f(2) == 4\"";
        JsonNode judged = json(server.post("/v1/judgements", TestServer.ADMIN_KEY, wrong + "}"), 200);
        conforms(judged, "Judgement");
        conforms(judged.get("verdict"), "Verdict");
        conforms(judged.get("execution"), "Execution");
        conforms(json(server.post("/v1/judgements", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"print(1)\"}"), 400),
                "Problem");
        JsonNode submitted = json(server.post("/v1/judgements", TestServer.ADMIN_KEY, wrong + ",\"wait\":false}"), 202);
        conforms(submitted, "JudgementSubmission");
        conforms(json(server.post("/v1/judgements/batch", TestServer.ADMIN_KEY, "{\"submissions\":[" + wrong + "}]}"), 202),
                "BatchAccepted");
        JsonNode page = json(server.get("/v1/judgements?ids=" + submitted.get("id").asText() + ",ju_unknown", TestServer.ADMIN_KEY), 200);
        conforms(page, "JudgementPage");
        page.get("judgements").forEach(e -> conforms(e, "JudgementSubmission"));
    }

    @Test
    void evaluationsCarryExactlyTheFieldsOfTheirSchemas() throws InterruptedException {
        JsonNode accepted = json(server.post("/v1/evaluations", TestServer.ADMIN_KEY, EvaluationsIT.tinyEvaluation().toString()), 202);
        conforms(accepted, "EvaluationSummary");
        JsonNode done = EvaluationsIT.awaitDone(server, TestServer.ADMIN_KEY, accepted.get("id").asText());
        assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("DONE");
        conforms(done, "Evaluation");
        done.get("problems").forEach(p -> {
            conforms(p, "EvaluationProblem");
            p.get("samples").forEach(s -> conforms(s, "EvaluationSample"));
        });
        JsonNode list = json(server.get("/v1/evaluations", TestServer.ADMIN_KEY), 200);
        conforms(list, "EvaluationList");
        list.get("evaluations").forEach(e -> conforms(e, "EvaluationSummary"));
        conforms(json(server.post("/v1/evaluations", TestServer.ADMIN_KEY, "{\"problems\":[],\"samples\":[]}"), 400), "Problem");
    }

    private static JsonNode json(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return TestServer.json(r);
    }

    /** Every required field is there, and every field there is declared (unless the schema allows more). */
    private static void conforms(JsonNode value, String schemaName) {
        JsonNode schema = doc.get("components").get("schemas").get(schemaName);
        List<String> fields = new ArrayList<>();
        value.fieldNames().forEachRemaining(fields::add);
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(n -> required.add(n.asText()));
        assertThat(fields).as("%s has the required fields of %s", value, schemaName).containsAll(required);
        if (!schema.path("additionalProperties").asBoolean(false)) {
            assertThat(properties(schemaName)).as("%s declares every field of %s", schemaName, value).containsAll(fields);
        }
    }

    private static Set<String> properties(String schemaName) {
        Set<String> names = new TreeSet<>();
        Iterator<String> it = doc.get("components").get("schemas").get(schemaName).get("properties").fieldNames();
        it.forEachRemaining(names::add);
        return names;
    }

    private static Set<String> components(Class<? extends Record> type) {
        Set<String> names = new TreeSet<>();
        Arrays.stream(type.getRecordComponents()).map(ApiDescriptionIT::wireName).forEach(names::add);
        return names;
    }

    private static String wireName(RecordComponent c) {
        JsonProperty p = c.getAccessor().getAnnotation(JsonProperty.class);
        if (p == null) {
            p = c.getAnnotation(JsonProperty.class);
        }
        return p == null ? c.getName() : p.value();
    }
}
