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

    @Test
    void aSampleCannotMakeItsProblemsTestsLookBrokenForTheOtherSamples() throws IOException {
        // the attack, from the source: which call the tests reach, and with what, is the code's doing. A sample
        // that returned a value at the depth cap made the tests' add([r, r], 0) unsendable, reported as the
        // problem's tests failing to load: every other sample of the problem went unjudged, pass@k read 0
        String test = "def check(candidate):\n    r = candidate(2, 3)\n    assert candidate([r, r], []) is not None\n"
                + "    if r == 'lambda':\n        candidate(lambda: 0, 1)\n"
                + "    if r == 'import':\n        import codeagent_no_such_module\n    assert r == 5\n";
        Path problems = Files.write(dir.resolve("problems.jsonl"), List.of(problem("Add/0", test)));
        String deep = "    if a == 2:\n        v = 1\n        for _ in range(100):\n            v = [v]\n        return v\n"
                + "    return a + b\n";
        Path samples = Files.write(dir.resolve("samples.jsonl"), List.of(
                sample("Add/0", deep),
                sample("Add/0", "    return 'lambda' if a == 2 else a + b\n"),
                sample("Add/0", "    return 'import' if a == 2 else a + b\n"),
                sample("Add/0", "    return a + b\n")));

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                "--sandbox", "process", "--timeout", "5s", "--workers", "1", "--json", "--out", dir.resolve("o.jsonl").toString());

        JsonNode summary = EvalJson.read(r.out());
        assertThat(summary.get("notJudged").asInt()).as(r.toString()).isZero();
        assertThat(summary.has("problemErrors") && summary.get("problemErrors").size() > 0).as(summary.toString()).isFalse();
        List<String> verdicts = EvalJson.readLines(dir.resolve("o.jsonl")).stream()
                .map(n -> n.get("verdict").asText() + " " + n.path("message").asText()).toList();
        // the deep value crosses back as it would in one process, then fails the last assert; the other two are
        // this sample's own INTERNAL_ERROR, and the honest sample is judged as usual
        assertThat(verdicts).as(r.toString()).hasSize(4);
        assertThat(verdicts.get(0)).startsWith("WRONG_ANSWER");
        assertThat(verdicts.get(1)).startsWith("INTERNAL_ERROR the tests cannot judge this program");
        assertThat(verdicts.get(2)).startsWith("INTERNAL_ERROR the tests cannot judge this program")
                .contains("codeagent_no_such_module");
        assertThat(verdicts.get(3)).isEqualTo("ACCEPTED ");
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
