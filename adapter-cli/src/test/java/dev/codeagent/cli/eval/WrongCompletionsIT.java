package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Completions that are wrong in each way a model's can be, run in the real process sandbox, get the right verdicts. */
@Tag("slow")
class WrongCompletionsIT {

    /** Two lines: the completion's first line is line 3 of the checked code. */
    private static final String PROMPT = "def add(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n";
    private static final String TEST = "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert candidate(-1, 1) == 0\n";

    @TempDir
    Path dir;

    private Path problems;

    @BeforeEach
    void setUp() throws IOException {
        ObjectNode p = EvalJson.object();
        p.put("task_id", "Add/0");
        p.put("prompt", PROMPT);
        p.put("canonical_solution", "    return a + b\n");
        p.put("test", TEST);
        p.put("entry_point", "add");
        problems = Files.writeString(dir.resolve("problems.jsonl"), EvalJson.line(p) + "\n");
    }

    @Test
    void rejectsEachKindOfWrongCompletionWithItsVerdict() throws IOException {
        List<String> completions = List.of(
                "    return a + b\n",
                "    return a - b\n",
                "    return a +* b\n",
                "    pair = [a, b]\n    return pair[5]\n",
                "    while True:\n        pass\n",
                "    hog = []\n    while True:\n        hog.append(bytearray(10 ** 7))\n",
                "    while True:\n        print('x' * 4096)\n",
                "    import os\n    os._exit(0)\n",
                "    import sys\n    sys.exit(0)\n");
        List<String> lines = new ArrayList<>();
        for (String c : completions) {
            ObjectNode s = EvalJson.object();
            s.put("task_id", "Add/0");
            s.put("completion", c);
            lines.add(EvalJson.line(s));
        }
        lines.add(2, "{\"task_id\": \"Add/0\", \"completion\": ");  // a truncated line: reported, skipped
        Path samples = Files.write(dir.resolve("samples.jsonl"), lines);
        Path out = dir.resolve("results.jsonl");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                // 3 s: with the run's memory group at its edge, a Python memory hog slows in page reclaim before its
                // MemoryError (a known cost of per-run groups with swap off, to be tuned: see docs/security-model.md)
                "--sandbox", "process", "--timeout", "3s", "--workers", "4", "--json", "--out", out.toString());

        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.err().lines()).as(r.toString()).singleElement().satisfies(line -> assertThat(line)
                .startsWith("codeagent: " + samples + ":3: not JSON: Unexpected end-of-input").endsWith(" (skipped)"));
        List<JsonNode> results = new ArrayList<>(EvalJson.readLines(out));
        results.sort(Comparator.comparingInt(n -> n.get("sample").asInt()));
        assertThat(results).extracting(n -> n.get("verdict").asText()).containsExactly(
                "ACCEPTED", "WRONG_ANSWER", "SYNTAX_ERROR", "RUNTIME_ERROR", "TIME_LIMIT_EXCEEDED",
                "MEMORY_LIMIT_EXCEEDED", "OUTPUT_LIMIT_EXCEEDED", "WRONG_ANSWER", "RUNTIME_ERROR");

        assertThat(results.get(1).get("message").asText()).contains("assert candidate(2, 3) == 5");
        assertThat(results.get(2).get("error").get("type").asText()).isEqualTo("SyntaxError");
        assertThat(results.get(2).get("error").get("line").asInt()).isEqualTo(3);
        JsonNode indexError = results.get(3).get("error");
        assertThat(indexError.get("type").asText()).isEqualTo("IndexError");
        assertThat(indexError.get("line").asInt()).isEqualTo(4);
        assertThat(indexError.get("sourceLine").asText()).contains("return pair[5]");
        assertThat(results.get(7).get("message").asText()).contains("the program ended while the tests were calling add(2, 3)");
        assertThat(results.get(8).get("message").asText()).startsWith("SystemExit: 0").contains("sys.exit(0)");

        JsonNode summary = EvalJson.read(r.out());
        assertThat(summary.get("total").asInt()).isEqualTo(9);
        assertThat(summary.get("passed").asInt()).isEqualTo(1);
        assertThat(summary.get("skippedLines").asInt()).isEqualTo(1);
        // one problem, n = 9 samples, c = 1: pass@1 = 1/9; fewer than 10 samples, so no pass@10
        assertThat(summary.get("passAtK").get("1").asDouble()).isCloseTo(1.0 / 9, within(1e-9));
        assertThat(summary.get("passAtK").has("10")).isFalse();
        assertThat(summary.get("verdicts").get("WRONG_ANSWER").asInt()).isEqualTo(2);
    }

    @Test
    void printsAHumanSummaryNamingTheFailures() throws IOException {
        Path samples = Files.writeString(dir.resolve("samples.jsonl"),
                "{\"task_id\": \"Add/0\", \"completion\": \"    return a + b\\n\"}\n"
                        + "{\"task_id\": \"Add/0\", \"completion\": \"    return a / 0\\n\"}\n");
        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--samples", samples.toString(),
                "--sandbox", "process");
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).contains("passed     1/2 (50.0%)").contains("pass@1      50.0%")
                .contains("verdicts   ACCEPTED 1, RUNTIME_ERROR 1")
                .contains("Add/0 #2  RUNTIME_ERROR ZeroDivisionError: division by zero (line 3: return a / 0)");
        assertThat(r.err()).isEmpty();
    }
}
