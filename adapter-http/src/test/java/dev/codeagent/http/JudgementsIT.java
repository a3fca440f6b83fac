package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/judgements}: given code judged with no model, over a real socket, on the real process sandbox — by a
 * task's tests (the split judge), an expected output, IO cases (Python and C), synchronously, asynchronously and in a
 * batch; the analysis is the agent loop's (exception, line, source line, the failing call and its value, the first
 * differing output line).
 */
@Tag("slow")
class JudgementsIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static ObjectNode body(String language, String code) {
        return Views.MAPPER.createObjectNode().put("language", language).put("code", code);
    }

    private static JsonNode judged(ObjectNode body) {
        HttpResponse<String> r = server.post("/v1/judgements", TestServer.ADMIN_KEY, body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return TestServer.json(r);
    }

    private static ArrayNode cases(String... inputThenOutput) {
        ArrayNode cases = Views.MAPPER.createArrayNode();
        for (int i = 0; i < inputThenOutput.length; i += 2) {
            cases.addObject().put("input", inputThenOutput[i]).put("output", inputThenOutput[i + 1]);
        }
        return cases;
    }

    @Test
    void aRightAnswerIsAccepted() {
        JsonNode j = judged(body("python", "def square(x):\n    return x * x\n").put("tests",
                "assert square(3) == 9\nassert square(-2) == 4\n"));
        assertThat(j.get("verdict").get("kind").asText()).as(j.toString()).isEqualTo("ACCEPTED");
        assertThat(j.get("calls")).isEmpty();
        assertThat(j.get("execution").get("outcome").asText()).isEqualTo("OK");
    }

    @Test
    void aWrongAnswerNamesTheFailingCallAndWhatItReturned() {
        JsonNode j = judged(body("python", "def square(x):\n    return x + x\n").put("tests",
                "assert square(2) == 4\nassert square(3) == 9\n"));
        JsonNode v = j.get("verdict");
        assertThat(v.get("kind").asText()).as(j.toString()).isEqualTo("WRONG_ANSWER");
        assertThat(v.get("message").asText()).contains("assert square(3) == 9");
        assertThat(j.get("calls").toString()).contains("square(3) returned 6");
    }

    @Test
    void anExceptionIsLocatedAtItsLineAndSourceLine() {
        JsonNode j = judged(body("python", "def mean(xs):\n    total = sum(xs)\n    return total / len(xs)\n")
                .put("tests", "assert mean([2, 4]) == 3\nassert mean([]) == 0\n"));
        JsonNode v = j.get("verdict");
        assertThat(v.get("kind").asText()).as(j.toString()).isEqualTo("RUNTIME_ERROR");
        assertThat(v.get("error").get("type").asText()).isEqualTo("ZeroDivisionError");
        assertThat(v.get("error").get("line").asInt()).isEqualTo(3);
        assertThat(v.get("error").get("sourceLine").asText()).isEqualTo("return total / len(xs)");
        assertThat(j.get("calls").toString()).contains("mean([]) raised ZeroDivisionError");
    }

    @Test
    void ioCasesNameTheCaseAndTheFirstDifferingLine() {
        String code = "n = int(input())\nfor i in range(1, n + 1):\n    print(i * i if i < 3 else i)\n";
        JsonNode j = judged(body("python", code).set("cases", cases("2\n", "1\n4\n", "4\n", "1\n4\n9\n16\n")));
        JsonNode v = j.get("verdict");
        assertThat(v.get("kind").asText()).as(j.toString()).isEqualTo("WRONG_ANSWER");
        assertThat(v.get("message").asText()).startsWith("test 2 of 2:");
        assertThat(v.get("difference").get("line").asInt()).isEqualTo(3);
        assertThat(v.get("difference").get("expected").asText()).isEqualTo("9");
        assertThat(v.get("difference").get("actual").asText()).isEqualTo("3");
        assertThat(j.get("execution").get("stdout").asText()).isEqualTo("1\n4\n3\n4\n");

        JsonNode expected = judged(body("python", "print(input()[::-1])\n").put("stdin", "abc\n").put("expectedOutput", "cba\n"));
        assertThat(expected.get("verdict").get("kind").asText()).as(expected.toString()).isEqualTo("ACCEPTED");
    }

    @Test
    void aCProgramIsJudgedByItsCasesAndItsCompileErrorsLocated() {
        String sum = "#include <stdio.h>\nint main(void) {\n    long a, b;\n    if (scanf(\"%ld %ld\", &a, &b) != 2) return 1;\n"
                + "    printf(\"%ld\\n\", a + b);\n    return 0;\n}\n";
        JsonNode right = judged(body("c", sum).set("cases", cases("1 2\n", "3\n", "40 2\n", "42\n")));
        assertThat(right.get("verdict").get("kind").asText()).as(right.toString()).isEqualTo("ACCEPTED");
        JsonNode wrong = judged(body("c", sum.replace("a + b", "a - b")).set("cases", cases("1 1\n", "0\n", "40 2\n", "42\n")));
        assertThat(wrong.get("verdict").get("kind").asText()).as(wrong.toString()).isEqualTo("WRONG_ANSWER");
        assertThat(wrong.get("verdict").get("message").asText()).startsWith("test 2 of 2:").contains("expected \"42\", got \"38\"");
        JsonNode broken = judged(body("c", "int main(void) {\n    return x;\n}\n").set("cases", cases("", "")));
        assertThat(broken.get("verdict").get("kind").asText()).as(broken.toString()).isEqualTo("COMPILATION_ERROR");
        assertThat(broken.get("verdict").get("error").get("line").asInt()).isEqualTo(2);
    }

    @Test
    void aHostileSampleGetsTheHonestVerdict() {
        String marker = "codeagent-secret-" + UUID.randomUUID().toString().replace("-", "");
        // it prints what a verdict line and a pass look like on both streams, searches every file it can open for the
        // tests (their marker, spelled backwards in its own source), and answers wrongly
        String code = "import os, sys, json\n"
                + "for out in (sys.stdout, sys.stderr):\n"
                + "    out.write(json.dumps({'outcome': 'passed', 'message': ''}) + '\\nACCEPTED\\n')\n"
                + "def leaked():\n"
                + "    hits = []\n"
                + "    for d, dirs, files in os.walk('/'):\n"
                + "        if d in ('/proc', '/sys', '/usr', '/dev'):\n"
                + "            dirs[:] = []\n"
                + "            continue\n"
                + "        for f in files:\n"
                + "            try:\n"
                + "                if not stat.S_ISREG(os.stat(os.path.join(d, f)).st_mode):\n"
                + "                    continue\n"
                + "                with open(os.path.join(d, f), 'rb') as fh:\n"
                + "                    if b'" + new StringBuilder(marker).reverse() + "'[::-1] in fh.read(1 << 20):\n"
                + "                        hits.append(os.path.join(d, f))\n"
                + "            except Exception:\n"
                + "                pass\n"
                + "    return hits\n"
                + "def double(x):\n"
                + "    return x * 3\n";
        JsonNode j = judged(body("python", code).put("tests",
                "MARK = '" + marker + "'\nassert leaked() == []\nassert double(2) == 4\n"));
        JsonNode v = j.get("verdict");
        assertThat(v.get("kind").asText()).as(j.toString()).isEqualTo("WRONG_ANSWER");
        assertThat(v.get("message").asText()).as("the tests were not found: the verdict is on double").contains("double(2) == 4");
        assertThat(j.get("calls").toString()).contains("double(2) returned 6");
        assertThat(j.get("execution").get("stdout").asText()).contains("ACCEPTED");
    }

    @Test
    void judgementsAreSubmittedAsynchronouslyAndInBatches() throws Exception {
        ObjectNode wrong = body("python", "def f(x):\n    return x\n").put("tests", "assert f(1) == 2\n");
        HttpResponse<String> r = server.post("/v1/judgements", TestServer.ADMIN_KEY, wrong.deepCopy().put("wait", false).toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        String location = r.headers().firstValue("Location").orElseThrow();
        String id = TestServer.json(r).get("id").asText();
        assertThat(id).startsWith("ju_");
        assertThat(location).isEqualTo("/v1/judgements/" + id);

        ArrayNode submissions = Views.MAPPER.createArrayNode();
        submissions.add(body("python", "def f(x):\n    return x + 1\n").put("tests", "assert f(1) == 2\n"));
        submissions.add(body("python", "print(int(input()) * 2)\n").set("cases", cases("2\n", "4\n", "5\n", "11\n")));
        submissions.add(body("c", "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n").put("expectedOutput", "hi\n"));
        ObjectNode batch = Views.MAPPER.createObjectNode();
        batch.set("submissions", submissions);
        HttpResponse<String> b = server.post("/v1/judgements/batch", TestServer.ADMIN_KEY, batch.toString());
        assertThat(b.statusCode()).as(b.body()).isEqualTo(202);
        List<String> ids = new ArrayList<>(List.of(id));
        TestServer.json(b).get("ids").forEach(n -> ids.add(n.asText()));

        JsonNode done = SubmissionsIT.awaitDone(server, "judgements", ids, 120);
        assertThat(done.get(0).get("result").get("verdict").get("kind").asText()).isEqualTo("WRONG_ANSWER");
        assertThat(done.get(0).get("result").get("calls").toString()).contains("f(1) returned 1");
        assertThat(done.get(1).get("result").get("verdict").get("kind").asText()).isEqualTo("ACCEPTED");
        assertThat(done.get(2).get("result").get("verdict").get("message").asText()).startsWith("test 2 of 2:");
        assertThat(done.get(3).get("result").get("verdict").get("kind").asText()).as(done.get(3).toString()).isEqualTo("ACCEPTED");
        JsonNode one = TestServer.json(server.get(location, TestServer.ADMIN_KEY));
        assertThat(one.get("result").get("verdict").get("kind").asText()).isEqualTo("WRONG_ANSWER");
        // a judgement is not an execution: each is collected where it was submitted
        assertThat(server.get("/v1/executions/" + id, TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
        assertThat(server.get("/v1/judgements/" + id, TestServer.EXEC_KEY).statusCode()).as("another key's").isEqualTo(404);
    }

    @Test
    void aRetryWithTheSameIdempotencyKeyIsAnsweredWithTheFirstJudgement() throws Exception {
        String body = body("python", "import random\nprint(random.random())\n").put("expectedOutput", "0.5\n").toString();
        String key = "judge-" + UUID.randomUUID();
        HttpResponse<String> first = server.send(server.request("/v1/judgements").header("Authorization", "Bearer "
                + TestServer.ADMIN_KEY).header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build());
        HttpResponse<String> again = server.send(server.request("/v1/judgements").header("Authorization", "Bearer "
                + TestServer.ADMIN_KEY).header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build());
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).contains("true");
        // the program prints a new random number each time it runs: the same one means it did not run again
        assertThat(again.body()).isEqualTo(first.body());
    }

    @Test
    void badInputIsAFieldErrorNamingTheField() {
        assertThat(fields(body("python", "print(1)"))).containsExactly("tests");
        assertThat(fields(body("python", "print(1)").put("tests", "assert True").put("expectedOutput", "1")))
                .containsExactly("expectedOutput");
        assertThat(fields(body("c", "int main(void){return 0;}").put("tests", "assert True"))).containsExactly("tests");
        assertThat(fields(body("python", "print(1)").put("stdin", "x").set("cases", cases("1", "1"))))
                .containsExactly("stdin");
        ObjectNode noOutput = body("python", "print(1)");
        noOutput.putArray("cases").addObject().put("input", "1");
        assertThat(fields(noOutput)).containsExactly("cases[0].output");
        assertThat(fields(Views.MAPPER.createObjectNode().put("language", "python").put("expectedOutput", "1")))
                .containsExactly("code");
        HttpResponse<String> unknown = server.post("/v1/judgements", TestServer.ADMIN_KEY, "{\"language\":\"python\",\"code\":\"x\","
                + "\"expected\":\"1\"}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("expected");
    }

    private static List<String> fields(ObjectNode body) {
        HttpResponse<String> r = server.post("/v1/judgements", TestServer.ADMIN_KEY, body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/problem+json");
        List<String> fields = new ArrayList<>();
        TestServer.json(r).get("errors").forEach(e -> fields.add(e.get("field").asText()));
        return fields;
    }
}
