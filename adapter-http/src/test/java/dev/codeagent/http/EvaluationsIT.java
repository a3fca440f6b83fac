package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.submit.SubmitEvaluations;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code /v1/evaluations}: an evaluation sent over a real socket and judged on the real process sandbox, polled until
 * done; its report is the JSON the report page renders; the caps refused with 400s naming the field; another key's
 * evaluation is not found; a key without the group is refused.
 */
@Tag("slow")
class EvaluationsIT {

    static final String ANN_KEY = "ann-evaluations-key-1357913579";
    static final String BOB_KEY = "bob-evaluations-key-2468024680";

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().set("http.auth.keys", "admin:" + ApiKeys.sha256Hex(TestServer.ADMIN_KEY)
                + ",exec:" + ApiKeys.sha256Hex(TestServer.EXEC_KEY) + ":executions"
                + ",ann:" + ApiKeys.sha256Hex(ANN_KEY) + ":evaluations,bob:" + ApiKeys.sha256Hex(BOB_KEY) + ":evaluations")
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /**
     * Two HumanEval problems, each with a right and a wrong sample; as in the dataset, a prompt is a function with its
     * docstring, which compiles by itself.
     */
    static ObjectNode tinyEvaluation() {
        ObjectNode body = Views.MAPPER.createObjectNode().put("subject", "two problems, one right and one wrong sample each");
        ArrayNode problems = body.putArray("problems");
        problems.addObject().put("task_id", "Tiny/0").put("prompt", "def inc(x):\n    \"\"\"x plus one\"\"\"\n")
                .put("canonical_solution", "    return x + 1\n")
                .put("test", "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(-1) == 0\n")
                .put("entry_point", "inc");
        problems.addObject().put("task_id", "Tiny/1").put("prompt", "def half(x):\n    \"\"\"x halved, rounded down\"\"\"\n")
                .put("canonical_solution", "    return x // 2\n")
                .put("test", "def check(candidate):\n    assert candidate(4) == 2\n    assert candidate(9) == 4\n")
                .put("entry_point", "half");
        ArrayNode samples = body.putArray("samples");
        samples.addObject().put("task_id", "Tiny/0").put("completion", "    return x + 1\n");
        samples.addObject().put("task_id", "Tiny/0").put("completion", "    return x - 1\n");
        samples.addObject().put("task_id", "Tiny/1").put("completion", "    return 1 // (x - x)\n");
        samples.addObject().put("task_id", "Tiny/1").put("completion", "    return x // 2\n");
        return body;
    }

    static JsonNode awaitDone(TestServer server, String key, String id) throws InterruptedException {
        long end = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < end) {
            HttpResponse<String> r = server.get("/v1/evaluations/" + id, key);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode e = TestServer.json(r);
            if (!e.get("status").asText().equals("QUEUED") && !e.get("status").asText().equals("RUNNING")) {
                return e;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("evaluation " + id + " not done in 60 s");
    }

    @Test
    void anEvaluationIsJudgedInTheBackgroundAndItsReportIsThePagesJson() throws InterruptedException {
        HttpResponse<String> posted = server.post("/v1/evaluations", ANN_KEY, tinyEvaluation().toString());
        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
        JsonNode accepted = TestServer.json(posted);
        String id = accepted.get("id").asText();
        assertThat(posted.headers().firstValue("Location")).hasValue("/v1/evaluations/" + id);
        assertThat(accepted.get("sampleCount").asInt()).isEqualTo(4);

        JsonNode done = awaitDone(server, ANN_KEY, id);
        assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("DONE");
        assertThat(done.get("schema").asInt()).isEqualTo(1);
        assertThat(done.get("sandbox").asText()).isEqualTo("process");
        assertThat(done.get("total").asInt()).isEqualTo(4);
        assertThat(done.get("passed").asInt()).as(done.toString()).isEqualTo(2);
        assertThat(done.get("passAtK").get("1").asDouble()).isEqualTo(0.5);
        assertThat(done.get("passAt1").asDouble()).isEqualTo(0.5);
        JsonNode first = done.get("problems").get(0);
        assertThat(first.get("id").asText()).isEqualTo("Tiny/0");
        assertThat(first.get("samples").get(0).get("verdict").asText()).isEqualTo("ACCEPTED");
        assertThat(first.get("samples").get(1).get("verdict").asText()).isEqualTo("WRONG_ANSWER");
        assertThat(first.get("samples").get(1).get("code").asText()).isEqualTo("    return x - 1\n");
        JsonNode crashed = done.get("problems").get(1).get("samples").get(0);
        assertThat(crashed.get("verdict").asText()).as(crashed.toString()).isEqualTo("RUNTIME_ERROR");
        assertThat(crashed.get("error").get("type").asText()).isEqualTo("ZeroDivisionError");
        assertThat(done.get("verdicts").get("ACCEPTED").asInt()).isEqualTo(2);

        JsonNode list = TestServer.json(server.get("/v1/evaluations", ANN_KEY));
        assertThat(list.get("evaluations").findValuesAsText("id")).contains(id);
        JsonNode listed = list.get("evaluations").get(0);
        assertThat(listed.get("status").asText()).isEqualTo("DONE");
        assertThat(listed.has("problems")).as("a list holds no reports").isFalse();

        // another key's evaluation is as one that does not exist: not shown, not listed, not forgotten
        assertThat(server.get("/v1/evaluations/" + id, BOB_KEY).statusCode()).isEqualTo(404);
        assertThat(TestServer.json(server.get("/v1/evaluations", BOB_KEY)).get("evaluations").findValuesAsText("id"))
                .doesNotContain(id);
        assertThat(server.delete("/v1/evaluations/" + id, BOB_KEY).statusCode()).isEqualTo(404);
        // a key without the group may not use it at all
        assertThat(server.get("/v1/evaluations", TestServer.EXEC_KEY).statusCode()).isEqualTo(403);

        assertThat(server.delete("/v1/evaluations/" + id, ANN_KEY).statusCode()).isEqualTo(204);
        assertThat(server.get("/v1/evaluations/" + id, ANN_KEY).statusCode()).isEqualTo(404);
    }

    @Test
    void onTheSqliteStoreAnEvaluationAndItsReportOutliveTheServer(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws InterruptedException {
        String file = dir.resolve("runs.db").toString();
        String id;
        JsonNode before;
        try (TestServer first = TestServer.builder().set("store.kind", "sqlite").set("store.sqlite.path", file).start()) {
            HttpResponse<String> posted = first.post("/v1/evaluations", TestServer.ADMIN_KEY, tinyEvaluation().toString());
            assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
            id = TestServer.json(posted).get("id").asText();
            before = awaitDone(first, TestServer.ADMIN_KEY, id);
            assertThat(before.get("status").asText()).isEqualTo("DONE");
        }
        try (TestServer second = TestServer.builder().set("store.kind", "sqlite").set("store.sqlite.path", file).start()) {
            HttpResponse<String> again = second.get("/v1/evaluations/" + id, TestServer.ADMIN_KEY);
            assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
            assertThat(TestServer.json(again)).isEqualTo(before);
        }
    }

    @Test
    void theCapsAndUnusableInputAreRefusedNamingTheField() {
        ObjectNode tooMany = tinyEvaluation();
        ArrayNode samples = tooMany.putArray("samples");
        for (int i = 0; i <= SubmitEvaluations.MAX_SAMPLES_PER_PROBLEM; i++) {
            samples.addObject().put("task_id", "Tiny/0").put("completion", "    return x\n");
        }
        assertRefused(tooMany, "samples", "at most " + SubmitEvaluations.MAX_SAMPLES_PER_PROBLEM + " samples per problem");

        ObjectNode manyProblems = tinyEvaluation();
        ArrayNode problems = manyProblems.putArray("problems");
        for (int i = 0; i <= SubmitEvaluations.MAX_PROBLEMS; i++) {
            problems.addObject().put("task_id", "P/" + i).put("prompt", "").put("test", "").put("entry_point", "f")
                    .put("canonical_solution", "");
        }
        assertRefused(manyProblems, "problems", "at most " + SubmitEvaluations.MAX_PROBLEMS + " problems");

        ObjectNode unknown = tinyEvaluation();
        ((ArrayNode) unknown.get("samples")).addObject().put("task_id", "Nope/7").put("completion", "x");
        assertRefused(unknown, "samples[4]", "unknown task_id 'Nope/7'");

        ObjectNode badFormat = tinyEvaluation().put("format", "leetcode");
        assertRefused(badFormat, "format", "unknown problem format 'leetcode'");

        ObjectNode missing = tinyEvaluation();
        missing.remove("samples");
        assertRefused(missing, "samples", "required");
        assertThat(TestServer.json(server.get("/v1/evaluations", BOB_KEY)).get("evaluations")).isEmpty();
    }

    private static void assertRefused(ObjectNode body, String field, String words) {
        HttpResponse<String> r = server.post("/v1/evaluations", BOB_KEY, body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode problem = TestServer.json(r);
        assertThat(problem.get("detail").asText()).contains(words);
        assertThat(problem.get("errors").get(0).get("field").asText()).isEqualTo(field);
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at dev.codeagent");
    }
}
