package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent judge} against the real process sandbox: the verdicts of {@code POST /v1/judgements}. */
class JudgeCommandTest {

    @TempDir
    Path dir;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(dir);
    }

    @Test
    void aWrongAnswerByTheTestsNamesTheCallAndExitsOne() throws IOException {
        Path code = Files.writeString(dir.resolve("square.py"), "def square(x):\n    return x + x\n");
        Path tests = Files.writeString(dir.resolve("tests.py"), "assert square(2) == 4\nassert square(3) == 9\n");
        CliRunner.Result r = cli.run("judge", code.toString(), "--tests", tests.toString());
        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).startsWith("WRONG_ANSWER").contains("assert square(3) == 9").contains("call: square(3) returned 6");

        Files.writeString(code, "def square(x):\n    return x * x\n");
        CliRunner.Result right = cli.run("judge", code.toString(), "--tests", tests.toString());
        assertThat(right.status()).as(right.toString()).isZero();
        assertThat(right.out()).isEqualTo("ACCEPTED\n");
    }

    @Test
    void ioCasesFromJsonLinesGiveTheFirstDifferingLineAsJson() throws IOException {
        Path code = Files.writeString(dir.resolve("double.py"), "print(int(input()) * 2)\n");
        Path cases = Files.writeString(dir.resolve("cases.jsonl"), "{\"input\": \"2\\n\", \"output\": \"4\\n\"}\n\n"
                + "{\"input\": \"5\\n\", \"output\": \"11\\n\"}\n");
        CliRunner.Result r = cli.run("judge", "--json", code.toString(), "--io", cases.toString());
        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertThat(j.get("verdict").get("kind").asText()).isEqualTo("WRONG_ANSWER");
        assertThat(j.get("verdict").get("message").asText()).startsWith("test 2 of 2:");
        assertThat(j.get("verdict").get("difference").get("actual").asText()).isEqualTo("10");
    }

    @Test
    void badInputNamesTheOptionOrTheLine() throws IOException {
        Path code = Files.writeString(dir.resolve("main.c"), "int main(void) { return 0; }\n");
        Path tests = Files.writeString(dir.resolve("tests.py"), "assert True\n");
        CliRunner.Result c = cli.run("judge", code.toString(), "--tests", tests.toString());
        assertThat(c.status()).isEqualTo(2);
        assertThat(c.err()).contains("--tests").contains("Python only");
        Path cases = Files.writeString(dir.resolve("cases.jsonl"), "{\"input\": \"1\"}\n");
        CliRunner.Result bad = cli.run("judge", code.toString(), "--io", cases.toString());
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("cases.jsonl line 1");
        CliRunner.Result none = cli.run("judge", code.toString());
        assertThat(none.status()).isEqualTo(2);
    }
}
