package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --generator} with {@code --repair-attempts}: a recorded model whose first answer is wrong and
 * whose second (after seeing the failing test) is right; programs run in the real process sandbox.
 */
@Tag("slow")
class GeneratedSamplesIT {

    @TempDir
    Path dir;

    @Test
    void theRepairLoopRaisesPassAtOne() throws IOException {
        ObjectNode p = EvalJson.object();
        p.put("task_id", "Add/0");
        p.put("prompt", "def add(a, b):\n    \"\"\"Return the sum of a and b.\"\"\"\n");
        p.put("canonical_solution", "    return a + b\n");
        p.put("test", "def check(candidate):\n    assert candidate(2, 3) == 5\n");
        p.put("entry_point", "add");
        Path problems = Files.writeString(dir.resolve("problems.jsonl"), EvalJson.line(p) + "\n");
        ObjectNode wrong = EvalJson.object().put("reply", "```python\ndef add(a, b):\n    return a - b\n```");
        ObjectNode right = EvalJson.object().put("reply", "Fixed:\n```python\ndef add(a, b):\n    return a + b\n```");
        Path replay = Files.write(dir.resolve("replay.jsonl"), List.of(EvalJson.line(wrong), EvalJson.line(right)));
        Path out = dir.resolve("results.jsonl");

        EvalCli.Result r = new EvalCli(dir).run("--problems", problems.toString(), "--sandbox", "process",
                "--set", "generator.replay.file=" + replay, "--generator", "replay", "--samples-per-task", "3",
                "--repair-attempts", "1", "--json", "--out", out.toString());

        assertThat(r.status()).as(r.toString()).isZero();
        JsonNode summary = EvalJson.read(r.out());
        assertThat(summary.get("total").asInt()).isEqualTo(3);
        assertThat(summary.get("passAtK").get("1").asDouble()).isCloseTo(1.0, within(1e-9));
        assertThat(summary.get("passAtKBeforeRepair").get("1").asDouble()).isCloseTo(0.0, within(1e-9));
        assertThat(EvalJson.readLines(out)).hasSize(3).allSatisfy(line -> {
            assertThat(line.get("passed").asBoolean()).isTrue();
            assertThat(line.get("completion").asText()).contains("return a + b");
        });
    }
}
