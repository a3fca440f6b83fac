package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests that cannot load (a syntax error, an import of a module that is not there) are the problem file's fault:
 * named once, on one line with the problem file, never as each sample's RUNTIME_ERROR; the other problems of the
 * same file are judged as usual, and the exit status says the evaluation had a problem error.
 */
@Tag("slow")
class ProblemErrorsIT {

    private static final String PROMPT = "def add(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n";

    @TempDir
    Path dir;

    @Test
    void namesEachProblemWhoseTestsCannotLoadOnceAndJudgesTheOthers() throws IOException {
        Path problems = Files.write(dir.resolve("problems.jsonl"), List.of(
                problem("Good/0", "def check(candidate):\n    assert candidate(2, 3) == 5\n"),
                problem("Syntax/0", "def check(candidate):\n    assert candidate(2, 3) == = 5\n"),
                problem("Import/0", "import codeagent_no_such_module\ndef check(candidate):\n    assert candidate(2, 3) == 5\n")));
        List<String> lines = new ArrayList<>();
        for (String task : List.of("Good/0", "Syntax/0", "Import/0")) {
            lines.add(sample(task, "    return a + b\n"));
            lines.add(sample(task, "    return a - b\n"));
            lines.add(sample(task, "    return a +* b\n"));
        }
        Path samples = Files.write(dir.resolve("samples.jsonl"), lines);
        Path out = dir.resolve("results.jsonl");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                "--sandbox", "process", "--timeout", "5s", "--workers", "2", "--json", "--out", out.toString());

        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        List<String> err = r.err().lines().toList();
        assertThat(err).as(r.toString()).hasSize(2);
        assertThat(err).filteredOn(l -> l.contains("'Syntax/0'")).singleElement().asString()
                .startsWith("codeagent: problem 'Syntax/0' in " + problems + ": its tests cannot load")
                .contains("SyntaxError");
        assertThat(err).filteredOn(l -> l.contains("'Import/0'")).singleElement().asString()
                .startsWith("codeagent: problem 'Import/0' in " + problems + ": its tests cannot load")
                .contains("codeagent_no_such_module");

        JsonNode summary = EvalJson.read(r.out());
        assertThat(summary.get("total").asInt()).isEqualTo(9);
        assertThat(summary.get("notJudged").asInt()).isEqualTo(6);
        assertThat(summary.get("passed").asInt()).isEqualTo(1);
        // the good problem alone: 1 of its 3 samples passes
        assertThat(summary.get("passAtK").get("1").asDouble()).isCloseTo(1.0 / 3, within(1e-9));
        assertThat(summary.get("verdicts").get("ACCEPTED").asInt()).isEqualTo(1);
        assertThat(summary.get("verdicts").get("WRONG_ANSWER").asInt()).isEqualTo(1);
        assertThat(summary.get("verdicts").get("SYNTAX_ERROR").asInt()).isEqualTo(1);
        assertThat(summary.get("verdicts").has("RUNTIME_ERROR")).as(summary.toString()).isFalse();
        assertThat(summary.get("problemErrors").fieldNames()).toIterable().containsExactlyInAnyOrder("Syntax/0", "Import/0");

        // the good problem's samples are judged as in any evaluation
        List<JsonNode> good = EvalJson.readLines(out).stream().filter(n -> n.get("task_id").asText().equals("Good/0")).toList();
        assertThat(good).extracting(n -> n.get("verdict").asText())
                .containsExactlyInAnyOrder("ACCEPTED", "WRONG_ANSWER", "SYNTAX_ERROR");
    }

    private static String problem(String task, String test) {
        ObjectNode p = EvalJson.object();
        p.put("task_id", task);
        p.put("prompt", PROMPT);
        p.put("canonical_solution", "    return a + b\n");
        p.put("test", test);
        p.put("entry_point", "add");
        return EvalJson.line(p);
    }

    private static String sample(String task, String completion) {
        ObjectNode s = EvalJson.object();
        s.put("task_id", task);
        s.put("completion", completion);
        return EvalJson.line(s);
    }
}
