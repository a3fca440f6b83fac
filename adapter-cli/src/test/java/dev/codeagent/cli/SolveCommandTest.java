package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.view.Goldens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent solve} with the replay generator, the memory store and the real process sandbox. */
class SolveCommandTest {

    /** The demo in the repository's examples/ directory, which the README runs. */
    private static final Path EXAMPLES = Path.of("..", "examples");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(dir);
    }

    @Test
    void theExampleIsSolvedOnTheSecondAttemptAfterARealIndexError() {
        CliRunner.Result r = cli.run("solve", "--task-file", EXAMPLES.resolve("middle-task.json").toString(),
                "--replay", EXAMPLES.resolve("middle.replay.jsonl").toString());
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.err()).as(r.toString()).contains(
                "attempt 1/3: RUNTIME_ERROR IndexError: list index out of range (line 6: return (ordered[half] + ordered[half + 1]) / 2)\n",
                "attempt 2/3: ACCEPTED\n",
                "codeagent: solved on attempt 2/3");
        assertThat(r.out()).startsWith("def middle(xs):\n    ordered = sorted(xs)\n")
                .contains("return (ordered[half - 1] + ordered[half]) / 2\n")
                .endsWith("    return ordered[half]\n").doesNotContain("--- output ---");
    }

    @Test
    void printsTheRunAsOneJsonObject() throws IOException {
        CliRunner.Result r = cli.run("solve", "--json", "--task-file", EXAMPLES.resolve("middle-task.json").toString(),
                "--generator", "replay", "--replay", EXAMPLES.resolve("middle.replay.jsonl").toString());
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.err()).isEmpty();
        JsonNode run = JSON.readTree(r.out());
        // the fields, in order, of the run view every door prints (the golden file the HTTP API is compared with too)
        JsonNode golden = Goldens.read(Goldens.SOLVED_RUN);
        assertThat(fields(run)).containsExactlyElementsOf(fields(golden));
        assertThat(run.get("status").asText()).isEqualTo("SOLVED");
        assertThat(run.get("attemptCount").asInt()).isEqualTo(2);
        assertThat(run.get("attempts")).hasSize(2);
        JsonNode first = run.get("attempts").get(0);
        assertThat(fields(first)).containsExactlyElementsOf(fields(golden.at("/attempts/0")));
        assertThat(fields(first.get("execution"))).containsExactlyElementsOf(fields(golden.at("/attempts/0/execution")));
        assertThat(first.get("number").asInt()).isEqualTo(1);
        assertThat(fields(first.get("placement"))).containsExactly("host", "pid", "tier");
        assertThat(first.get("placement").get("pid").asLong()).as("made in this process").isEqualTo(ProcessHandle.current().pid());
        assertThat(first.get("verdict").get("kind").asText()).isEqualTo("RUNTIME_ERROR");
        assertThat(first.get("execution").get("outcome").asText()).as("the program ran cleanly; the judge saw its call raise").isEqualTo("OK");
        JsonNode error = first.get("verdict").get("error");
        assertThat(fields(error)).containsExactlyElementsOf(fields(golden.at("/attempts/0/verdict/error")));
        assertThat(error.get("type").asText()).isEqualTo("IndexError");
        assertThat(error.get("line").asInt()).isEqualTo(6);
        assertThat(error.get("sourceLine").asText().strip()).isEqualTo("return (ordered[half] + ordered[half + 1]) / 2");
        assertThat(first.get("execution").get("stderr").asText()).as("the judge's machinery is not the program's").isEmpty();
        JsonNode second = run.get("attempts").get(1);
        assertThat(second.get("verdict").get("kind").asText()).isEqualTo("ACCEPTED");
        assertThat(second.get("verdict").get("error").isNull()).isTrue();
        assertThat(run.get("code").asText()).isEqualTo(second.get("code").asText()).contains("ordered[half - 1]");
        assertThat(run.get("output").asText()).as("the tests' prints are the judge's, not the program's").isEmpty();
    }

    @Test
    void exitsOneWhenTheAttemptsAreSpent() throws IOException {
        Path replay = Files.writeString(dir.resolve("wrong.jsonl"),
                JSON.writeValueAsString(Map.of("reply", "```python\ndef double(x):\n    return x + 2\n```")) + "\n"
                + JSON.writeValueAsString(Map.of("reply", "```python\ndef double(x):\n    return x ** 2\n```")) + "\n");
        Path tests = Files.writeString(dir.resolve("tests.py"), "assert double(3) == 6\n");
        CliRunner.Result r = cli.run("solve", "double a number", "--tests", tests.toString(), "--replay", replay.toString(),
                "--max-attempts", "2");
        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).contains("attempt 1/2: WRONG_ANSWER", "attempt 2/2: WRONG_ANSWER", "codeagent: not solved after 2/2 attempts");
        assertThat(r.out()).contains("return x ** 2");
    }

    @Test
    void judgesAgainstAnExpectedOutputFile() throws IOException {
        Path replay = Files.writeString(dir.resolve("count.jsonl"),
                JSON.writeValueAsString(Map.of("reply", "```python\nfor i in range(3):\n    print(i)\n```")) + "\n");
        Path expected = Files.writeString(dir.resolve("expected.txt"), "0\n1\n2\n");
        CliRunner.Result r = cli.run("solve", "print 0, 1 and 2 on their own lines", "--expected-output", expected.toString(),
                "--replay", replay.toString());
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("for i in range(3):\n    print(i)\n--- output ---\n0\n1\n2\n");
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
