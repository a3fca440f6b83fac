package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input/output problems, as programming contests judge them, in compiled languages and Python, run by the real
 * process sandbox: each completion once per test (a compiled one compiled once), the outputs compared by the judge.
 */
@Tag("slow")
class IoProblemsIT {

    @TempDir
    Path dir;

    private static ObjectNode problem(String id, String language, String... inOut) {
        ObjectNode p = EvalJson.object();
        p.put("task_id", id);
        p.put("prompt", "Print the sum of the two numbers on the line.");
        if (language != null) {
            p.put("language", language);
        }
        ArrayNode tests = p.putArray("tests");
        for (int i = 0; i < inOut.length; i += 2) {
            tests.addObject().put("input", inOut[i]).put("output", inOut[i + 1]);
        }
        return p;
    }

    private static String sample(String id, String completion) {
        ObjectNode s = EvalJson.object();
        s.put("task_id", id);
        s.put("completion", completion);
        return EvalJson.line(s);
    }

    @Test
    void judgesEachSampleByEveryTestsOutput() throws IOException {
        String[] cases = {"1 2\n", "3\n", "40 2\n", "42\n", "-5 5\n", "0\n"};
        Path problems = Files.write(dir.resolve("problems.jsonl"), List.of(
                EvalJson.line(problem("sum-c", "c", cases)),
                EvalJson.line(problem("sum-java", "java", cases)),
                EvalJson.line(problem("sum-py", null, cases))));
        String c = "#include <stdio.h>\nint main(void) { long a, b; scanf(\"%ld %ld\", &a, &b); printf(\"%ld\\n\", a + b); return 0; }\n";
        String cWrongOnNegatives = "#include <stdio.h>\nint main(void) { long a, b; scanf(\"%ld %ld\", &a, &b);"
                + " printf(\"%ld\\n\", a < 0 ? a - b : a + b); return 0; }\n";
        String cBroken = "#include <stdio.h>\nint main(void) {\n  printf(\"%d\\n\", a + b);\n}\n";
        String java = "import java.util.*;\npublic class Sum { public static void main(String[] x) { Scanner s = new Scanner(System.in);"
                + " System.out.println(s.nextLong() + s.nextLong()); } }\n";
        String python = "a, b = map(int, input().split())\nprint(a + b)\n";
        Path samples = Files.write(dir.resolve("samples.jsonl"), List.of(
                sample("sum-c", c), sample("sum-c", cWrongOnNegatives), sample("sum-c", cBroken),
                sample("sum-java", java), sample("sum-py", python), sample("sum-py", "print(3)\n")));
        Path out = dir.resolve("results.jsonl");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                "--sandbox", "process", "--workers", "2", "--json", "--out", out.toString());

        assertThat(r.status()).as(r.toString()).isZero();
        List<JsonNode> results = new ArrayList<>(EvalJson.readLines(out));
        results.sort(Comparator.comparing((JsonNode n) -> n.get("task_id").asText()).thenComparingInt(n -> n.get("sample").asInt()));
        assertThat(results).extracting(n -> n.get("task_id").asText() + " " + n.get("verdict").asText()).containsExactly(
                "sum-c ACCEPTED", "sum-c WRONG_ANSWER", "sum-c COMPILATION_ERROR", "sum-java ACCEPTED",
                "sum-py ACCEPTED", "sum-py WRONG_ANSWER");
        assertThat(results.get(1).get("message").asText()).startsWith("test 3 of 3: wrong output at line 1: expected \"0\"");
        assertThat(results.get(2).get("message").asText()).startsWith("main.c:3:").contains("undeclared");
        assertThat(results.get(2).get("error").get("line").asInt()).isEqualTo(3);
        assertThat(results.get(5).get("message").asText()).startsWith("test 2 of 3: ");
        assertThat(EvalJson.read(r.out()).get("passed").asInt()).isEqualTo(3);
    }
}
