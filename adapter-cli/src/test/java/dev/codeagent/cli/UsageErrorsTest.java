package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input gets one line on stderr, prefixed "codeagent: ", exit status 2 and never a stack trace. */
class UsageErrorsTest {

    @TempDir
    Path dir;

    private CliRunner cli;
    private Path hello;

    @BeforeEach
    void setUp() throws IOException {
        cli = new CliRunner(dir);
        hello = Files.writeString(dir.resolve("hello.py"), "print('hello')\n");
    }

    @Test
    void refusesAMissingFile() {
        CliRunner.Result r = cli.run("exec", dir.resolve("nope.py").toString());
        assertUsageError(r, "nope.py: no such file");
    }

    @Test
    void refusesATimeoutWithoutAUnit() {
        CliRunner.Result r = cli.run("exec", "--timeout", "5x", hello.toString());
        assertUsageError(r, "'5x' is not a duration");
        assertThat(r.err()).contains("--timeout");
    }

    @Test
    void refusesAnUnknownSandboxListingTheKnownOnes() {
        CliRunner.Result r = cli.run("exec", "--sandbox", "vm", hello.toString());
        assertUsageError(r, "sandbox.kind: unknown 'vm'; known: ");
        assertThat(r.err()).contains("process");
    }

    @Test
    void refusesASourceOverTheSizeCap() throws IOException {
        Path big = Files.writeString(dir.resolve("big.py"), "x = 1\n".repeat(100));
        CliRunner.Result r = cli.run("exec", "--set", "sandbox.maxSourceBytes=256", big.toString());
        assertUsageError(r, "the limit is 256 (sandbox.maxSourceBytes)");
    }

    @Test
    void refusesASourceOverTheSizeCapOnStdinWithoutReadingItAll() {
        CliRunner.Result r = cli.runWithStdin("#".repeat(5000), "exec", "--set", "sandbox.maxSourceBytes=1k", "-");
        assertUsageError(r, "is more than 1024 bytes; the limit is 1024 (sandbox.maxSourceBytes)");
    }

    @Test
    void refusesANulByteInTheSource() throws IOException {
        Path nul = Files.write(dir.resolve("nul.py"), "print(1)\0\n".getBytes(StandardCharsets.UTF_8));
        CliRunner.Result r = cli.run("exec", nul.toString());
        assertUsageError(r, "nul.py: source contains a NUL byte at offset 8");
    }

    @Test
    void refusesAnUnknownLanguage() {
        CliRunner.Result r = cli.run("exec", "--language", "cobol", hello.toString());
        assertUsageError(r, "unknown language 'cobol'; known: python, javascript, bash");
    }

    @Test
    void refusesAnUnknownOption() {
        CliRunner.Result r = cli.run("exec", "--frobnicate", hello.toString());
        assertUsageError(r, "unknown option '--frobnicate'");
        assertThat(r.err()).contains("'codeagent exec --help'");
    }

    @Test
    void refusesAMemoryLimitBelowTheSandboxMinimum() {
        CliRunner.Result r = cli.run("exec", "--memory", "1m", hello.toString());
        assertUsageError(r, "invalid limits: memoryBytes must be at least 16 MiB");
    }

    @Test
    void refusesAMissingConfigFile() {
        CliRunner.Result r = cli.run("exec", "--config", dir.resolve("missing.yaml").toString(), hello.toString());
        assertUsageError(r, "missing.yaml does not exist");
    }

    @Test
    void refusesAnUnknownConfigKey() {
        CliRunner.Result r = cli.run("config", "--set", "sandbox.kindd=docker");
        assertUsageError(r, "unknown config key 'sandbox.kindd'");
    }

    @Test
    void refusesToReadProgramAndInputBothFromStdin() {
        CliRunner.Result r = cli.run("exec", "--stdin", "-", "-");
        assertUsageError(r, "cannot both come from standard input");
    }

    @Test
    void refusesAnUnknownCommandAndAMissingOne() {
        assertUsageError(cli.run("frobnicate"), "unknown command 'frobnicate'; commands: exec, solve");
        CliRunner.Result none = cli.run();
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err()).contains("Usage: codeagent").endsWith("codeagent: a command is needed: exec, solve, runs, eval, config or version\n");
    }

    @Test
    void refusesASolveWithoutATask() {
        assertUsageError(cli.run("solve", "--generator", "replay"), "no task: give it as an argument");
    }

    @Test
    void refusesABadTaskFile() throws IOException {
        Path task = Files.writeString(dir.resolve("task.json"), "{\"prompt\": \"x\", \"tests\": 3}");
        assertUsageError(cli.run("solve", "--task-file", task.toString()), "task.json: tests: expected a string, got number");
        Files.writeString(task, "{\"prompt\": \"x\", \"limts\": {}}");
        assertUsageError(cli.run("solve", "--task-file", task.toString()), "task.json: unknown field 'limts'; known: prompt, language");
        Files.writeString(task, "{\"prompt\": \"x\", \"limits\": {\"timeoutMs\": \"soon\"}}");
        assertUsageError(cli.run("solve", "--task-file", task.toString()), "task.json: limits.timeoutMs: 'soon' is not a duration");
        Files.writeString(task, "{\"prompt\": ");
        assertUsageError(cli.run("solve", "--task-file", task.toString()), "task.json: not valid JSON at line 1");
    }

    @Test
    void refusesTooManyAttempts() {
        assertUsageError(cli.run("solve", "x", "--max-attempts", "50"), "invalid task: maxAttempts must be between 1 and 20, was 50");
    }

    @Test
    void refusesAMissingReplayFile() {
        assertUsageError(cli.run("solve", "x", "--replay", dir.resolve("gone.jsonl").toString()), "gone.jsonl: no such file (--replay)");
    }

    @Test
    void refusesATimeoutPastTheCeilingInTheFlagsOwnWords() {
        CliRunner.Result r = cli.run("exec", "--timeout", "2h", hello.toString());
        assertUsageError(r, "--timeout 2h: longer than the ceiling 1h (limits.maxWallTime; raise it in config");
        assertThat(r.err()).doesNotContain("wallTime must", "invalid config in defaults", "config key limits.timeout");
    }

    @Test
    void aRaisedCeilingLetsALongerTimeoutThrough() {
        // past the ceiling the config allows, refused; within it, the limit is what the user asked for
        CliRunner.Result r = cli.run("config", "--set", "limits.maxWallTime=3h", "--set", "limits.timeout=2h");
        assertThat(r.status()).as(r.toString()).isZero();
        assertThat(r.out()).contains("\"maxWallTime\" : \"3h\"").contains("\"timeout\" : \"2h\"");
        assertUsageError(cli.run("config", "--set", "limits.maxWallTime=25h"), "limits.maxWallTime must be between 1ms and 24h");
    }

    @Test
    void aBadSetNamesTheSetNotTheDefaults() {
        CliRunner.Result r = cli.run("config", "--set", "limits.timeout=2h");
        assertUsageError(r, "--set limits.timeout=2h: limits.timeout 2h is longer than the ceiling 1h (limits.maxWallTime");
        assertThat(r.err()).doesNotContain("in defaults");
    }

    @Test
    void aMisspeltOptionOrCommandGetsDidYouMean() {
        assertUsageError(cli.run("exec", "--timout", "5s", hello.toString()), "unknown option '--timout'; did you mean --timeout?");
        assertUsageError(cli.run("exce", hello.toString()), "unknown command 'exce'; did you mean exec?");
        assertUsageError(cli.run("serv"), "unknown command 'serv'; did you mean serve?");
        assertUsageError(cli.run("serve"), "'serve' is started by the ./codeagent launcher");
        assertUsageError(cli.run("frobnicate"), "; commands: exec, solve, runs, config, eval, judge, session, worker, version, serve, jupyter");
        assertUsageError(cli.run("solve", "x", "--max-atempts", "3"), "did you mean --max-attempts?");
        CliRunner.Result r = cli.run("exec", "--frobnicate", hello.toString());
        assertThat(r.err()).doesNotContain("did you mean", "Unmatched", "index");
    }

    @Test
    void aTaskErrorNamesItsFieldOnce() throws IOException {
        Path tests = Files.writeString(dir.resolve("t.js"), "assert(true)\n");
        CliRunner.Result r = cli.run("solve", "x", "--language", "javascript", "--tests", tests.toString(), "--generator", "replay",
                "--set", "generator.replay.file=" + tests);
        assertUsageError(r, "invalid task: tests are judged for python only");
        assertThat(r.err()).doesNotContain("tests tests");
    }

    static void assertUsageError(CliRunner.Result r, String message) {
        assertThat(r.status()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).as(r.toString())
                .startsWith("codeagent: ")
                .contains(message)
                .doesNotContain("Exception", "\tat ");
        assertThat(r.err().strip().lines().count()).as(r.toString()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
    }
}
