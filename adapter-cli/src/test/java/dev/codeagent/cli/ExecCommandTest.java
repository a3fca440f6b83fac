package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent exec} against the real process sandbox. */
class ExecCommandTest {

    @TempDir
    Path dir;

    private CliRunner cli;

    @BeforeEach
    void setUp() {
        cli = new CliRunner(dir);
    }

    @Test
    void passesTheProgramsOutputThroughAndExitsZero() throws IOException {
        Path file = Files.writeString(dir.resolve("hello.py"), "import sys\nprint('héllo')\nprint('careful', file=sys.stderr)\n");
        CliRunner.Result r = cli.run("exec", file.toString());
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("héllo\n");
        assertThat(r.err()).isEqualTo("careful\n");
    }

    @Test
    void readsTheProgramFromStandardInput() {
        CliRunner.Result r = cli.runWithStdin("print(6 * 7)\n", "exec", "-");
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("42\n");
    }

    @Test
    void takesTheLanguageFromTheFileExtension() throws IOException {
        Path file = Files.writeString(dir.resolve("answer.sh"), "echo $((6 * 7)) from bash\n");
        CliRunner.Result r = cli.run("exec", file.toString());
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).startsWith("42 from");
    }

    @Test
    void givesTheProgramItsInputAndArguments() throws IOException {
        Path input = Files.writeString(dir.resolve("in.txt"), "3\n4\n");
        Path file = Files.writeString(dir.resolve("sum.py"), "import sys\nprint(sum(int(l) for l in sys.stdin), sys.argv[1:])\n");
        CliRunner.Result r = cli.run("exec", "--stdin", input.toString(), file.toString(), "--", "-a", "b");
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("7 ['-a', 'b']\n");
    }

    @Test
    void mirrorsTheProgramsExitCode() {
        CliRunner.Result r = cli.runWithStdin("import sys\nprint('bye')\nsys.exit(3)\n", "exec");
        assertThat(r.status()).as(r.toString()).isEqualTo(3);
        assertThat(r.out()).isEqualTo("bye\n");
        assertThat(r.err()).doesNotContain("codeagent");
    }

    @Test
    void mirrorsAnUncaughtExceptionAsStatusOneWithTheTraceback() {
        CliRunner.Result r = cli.runWithStdin("1 / 0\n", "exec", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).contains("ZeroDivisionError").doesNotContain("codeagent");
    }

    @Test
    void reportsDeathBySignalAs128PlusTheSignal() {
        CliRunner.Result r = cli.runWithStdin("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", "exec", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(128 + 15);
    }

    @Test
    void aSegfaultEndsWithALineNamingSigsegv() {
        CliRunner.Result r = cli.runWithStdin("import os, signal\nprint('before', flush=True)\nos.kill(os.getpid(), signal.SIGSEGV)\n",
                "exec", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(128 + 11);
        assertThat(r.out()).isEqualTo("before\n");
        assertThat(r.err()).endsWith("codeagent: killed by SIGSEGV (signal 11: segmentation fault: an invalid memory access)\n");
    }

    @Test
    void endsWith124AndANoteWhenTheTimeLimitHits() {
        CliRunner.Result r = cli.runWithStdin("print('started', flush=True)\nwhile True:\n    pass\n", "exec", "--timeout", "500ms", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(124);
        assertThat(r.out()).isEqualTo("started\n");
        assertThat(r.err()).startsWith("codeagent: time limit exceeded (500ms wall, 500ms CPU)");
    }

    @Test
    void endsWith137AndANoteWhenTheMemoryLimitHits() {
        CliRunner.Result r = cli.runWithStdin("x = bytearray(512 * 1024 * 1024)\n", "exec", "--memory", "64m", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(137);
        assertThat(r.err()).contains("codeagent: memory limit exceeded (64m)");
    }

    @Test
    void endsWith153AndANoteWhenTheOutputLimitHits() {
        CliRunner.Result r = cli.runWithStdin("while True:\n    print('x' * 1000)\n", "exec", "--set", "limits.outputBytes=4k", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(153);
        assertThat(r.out()).hasSizeLessThanOrEqualTo(4096).startsWith("xxx");
        assertThat(r.err()).contains("codeagent: output limit exceeded (4k per stream");
    }

    @Test
    void printsExactlyTheDocumentedJsonFields() throws IOException {
        CliRunner.Result r = cli.runWithStdin("import sys\nprint('out')\nprint('err', file=sys.stderr)\nsys.exit(4)\n", "exec", "--json", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(4);
        assertThat(r.err()).isEmpty();
        JsonNode json = new ObjectMapper().readTree(r.out());
        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactly("outcome", "exitCode", "signal", "stdout", "stderr", "stdoutTruncated",
                "stderrTruncated", "wallTimeMs", "cpuTimeMs", "peakMemoryBytes", "sandbox", "isolation", "detail", "compile");
        assertThat(json.get("compile").isNull()).as("Python has no compile stage").isTrue();
        assertThat(json.get("outcome").asText()).isEqualTo("RUNTIME_ERROR");
        assertThat(json.get("exitCode").asInt()).isEqualTo(4);
        assertThat(json.get("signal").isNull()).isTrue();
        assertThat(json.get("stdout").asText()).isEqualTo("out\n");
        assertThat(json.get("stderr").asText()).isEqualTo("err\n");
        assertThat(json.get("stdoutTruncated").asBoolean()).isFalse();
        assertThat(json.get("wallTimeMs").asLong()).isPositive();
        assertThat(json.get("cpuTimeMs").isNull() || json.get("cpuTimeMs").isIntegralNumber()).isTrue();
        assertThat(json.get("sandbox").asText()).isEqualTo("process");
        assertThat(json.get("isolation").isArray()).isTrue();
        assertThat(json.get("isolation").toString()).contains("rlimits");
    }

    /** A compiled program that does not compile: the compiler's words first, a note, and gcc's own status. */
    @Test
    void aCompileErrorShowsTheCompilersMessagesAndEndsWithItsStatus() throws IOException {
        org.assertj.core.api.Assumptions.assumeThat(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/gcc"))).isTrue();
        CliRunner.Result r = cli.runWithStdin("int main(void) {\n  return nope;\n}\n", "exec", "--language", "c", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("main.c:2:10: error: ").contains("codeagent: compilation failed: main.c:2:10: ");

        CliRunner.Result json = cli.runWithStdin("int main(void) {\n  return nope;\n}\n", "exec", "--json", "-l", "c", "-");
        JsonNode compile = new ObjectMapper().readTree(json.out()).get("compile");
        // the compiler exiting 1 is a failed compile, not a runtime error of the program (issue 34)
        assertThat(compile.get("outcome").asText()).isEqualTo("COMPILATION_ERROR");
        assertThat(compile.get("exitCode").asInt()).isEqualTo(1);
        assertThat(compile.get("stderr").asText()).contains("main.c:2:10: error: ");
    }

    @Test
    void reportsTheTimeLimitInJsonWithoutANote() throws IOException {
        CliRunner.Result r = cli.runWithStdin("import time\ntime.sleep(30)\n", "exec", "--json", "--timeout", "300ms", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(124);
        assertThat(r.err()).isEmpty();
        assertThat(new ObjectMapper().readTree(r.out()).get("outcome").asText()).isEqualTo("TIME_LIMIT");
    }

    /** As {@code echo bob | python3 ask.py}: what is piped in reaches the program unless --stdin none says not to. */
    @Test
    void pipedInputReachesTheProgramByDefaultAndNoneTurnsItOff() throws IOException {
        Path ask = Files.writeString(dir.resolve("ask.py"), "name = input('name? ')\nprint('hello', name)\n");
        CliRunner.Result piped = cli.runWithStdin("bob\n", "exec", ask.toString());
        assertThat(piped.status()).as(piped.toString()).isZero();
        assertThat(piped.out()).isEqualTo("name? hello bob\n");

        CliRunner.Result dash = cli.runWithStdin("ann\n", "exec", "--stdin", "-", ask.toString());
        assertThat(dash.out()).as(dash.toString()).isEqualTo("name? hello ann\n");

        CliRunner.Result none = cli.runWithStdin("bob\n", "exec", "--stdin", "none", ask.toString());
        assertThat(none.status()).as(none.toString()).isEqualTo(1);
        assertThat(none.err()).contains("EOFError");
    }
}
