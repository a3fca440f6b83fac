package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The text report says what a reader needs without --out: how many problems the file has and how many had samples,
 * the skipped lines, 1-based sample numbers, and pass@k for the k asked for. Real process sandbox.
 */
@Tag("slow")
class EvalReportIT {

    @TempDir
    Path dir;

    private Path problems;

    private static String problem(String id, String name) {
        ObjectNode p = EvalJson.object();
        p.put("task_id", id);
        p.put("prompt", "def " + name + "(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n");
        p.put("canonical_solution", "    return a + b\n");
        p.put("test", "def check(candidate):\n    assert candidate(2, 3) == 5\n");
        p.put("entry_point", name);
        return EvalJson.line(p);
    }

    private static String sample(String id, String completion) {
        ObjectNode s = EvalJson.object();
        s.put("task_id", id);
        s.put("completion", completion);
        return EvalJson.line(s);
    }

    @BeforeEach
    void setUp() throws IOException {
        problems = Files.write(dir.resolve("problems.jsonl"), List.of(problem("Add/0", "add"), problem("Add/1", "plus"),
                problem("Add/2", "sum2")));
    }

    @Test
    void theTextReportCountsProblemsSkippedLinesAndNumbersSamplesFromOne() throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(sample("Add/0", "    return a + b\n"));
        lines.add(sample("Add/0", "    return a - b\n"));
        lines.add("{\"task_id\": \"Add/0\", \"completion\": ");
        Path samples = Files.write(dir.resolve("samples.jsonl"), lines);

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                "--sandbox", "process", "--k", "1,2,10");

        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).as(r.toString())
                .contains("problems   3 from " + problems + ", 1 with samples")
                .contains("skipped    1 bad line (named on stderr)")
                // the second sample of Add/0 is #2, as a reader counts lines
                .containsPattern("Add/0 #2  WRONG_ANSWER failed assertion: assert candidate\\(2, 3\\) == 5")
                .contains("pass@1      50.0%")
                .contains("pass@2      100.0%")
                .contains("pass@10     n/a (needs at least 10 samples of every problem; the fewest is 2)");

        JsonNode json = EvalJson.read(new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                "--sandbox", "process", "--k", "2", "--json").out());
        assertThat(json.get("passAtK").get("2").asDouble()).isEqualTo(1.0);
        assertThat(json.get("passAtK").has("1")).isFalse();
        assertThat(json.get("problemsInFile").asInt()).isEqualTo(3);
        assertThat(json.get("problems").asInt()).isEqualTo(1);
    }

    @Test
    void aBadKIsRefusedInTheFlagsWords() {
        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--k", "0,10");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("codeagent: --k 0,10: each k must be at least 1, e.g. --k 1,10,100\n");
    }
}
