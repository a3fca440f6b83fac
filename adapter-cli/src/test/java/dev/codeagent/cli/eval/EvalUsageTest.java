package dev.codeagent.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad options and unusable inputs: one line on stderr, status 2, before any sandbox starts. */
class EvalUsageTest {

    private static final String PROBLEM = "{\"task_id\": \"T/0\", \"prompt\": \"def f():\\n\", \"canonical_solution\": \"    return 1\\n\","
            + " \"test\": \"def check(c):\\n    assert c() == 1\\n\", \"entry_point\": \"f\"}\n";

    @TempDir
    Path dir;

    private EvalCli cli;
    private Path problems;

    @BeforeEach
    void setUp() throws IOException {
        cli = new EvalCli(dir);
        problems = Files.writeString(dir.resolve("problems.jsonl"), PROBLEM);
    }

    @Test
    void needsAProblemsFile() {
        expectUsage(cli.run(), "--problems FILE is required");
    }

    @Test
    void aMisspeltRequiredOptionIsNamedAsTheMisspelling() {
        EvalCli.Result r = cli.run("--problem", problems.toString());
        expectUsage(r, "unknown option '--problem'; did you mean --problems?");
        assertThat(r.err()).doesNotContain("Missing required", "Unmatched", "index");
    }

    @Test
    void refusesBadValues() {
        expectUsage(cli.run("--problems", problems.toString(), "--workers", "0"), "--workers must be between 1 and 256, was 0");
        expectUsage(cli.run("--problems", problems.toString(), "--format", "apps"), "unknown problem format 'apps'; known: humaneval, mbpp");
        expectUsage(cli.run("--problems", problems.toString(), "--timeout", "soon"), "soon");
        expectUsage(cli.run("--problems", problems.toString(), "--workers", "many"), "many");
    }

    @Test
    void refusesOptionsThatDoNotGoTogether() {
        expectUsage(cli.run("--problems", problems.toString(), "--samples", problems.toString(), "--generator", "openai"),
                "--samples and --generator exclude each other");
        expectUsage(cli.run("--problems", problems.toString(), "--samples-per-task", "5"), "--samples-per-task needs --generator");
        expectUsage(cli.run("--problems", problems.toString(), "--generator", "openai", "--repair-attempts", "20"),
                "--repair-attempts must be between 0 and 19, was 20");
        expectUsage(cli.run("--problems", problems.toString(), "--out", dir.toString()), "is a directory (--out)");
    }

    @Test
    void saysWhichFileIsMissingOrUnusable() throws IOException {
        expectUsage(cli.run("--problems", dir.resolve("nope.jsonl").toString()), "nope.jsonl: no such file");
        Path junk = Files.writeString(dir.resolve("junk.jsonl"), "{\"task_id\": 1, \"question\": \"?\"}\n");
        expectUsage(cli.run("--problems", junk.toString()), "cannot tell the problem format");
        Path samples = Files.writeString(dir.resolve("samples.jsonl"), "not json\n{\"task_id\": \"T/9\", \"completion\": \"\"}\n");
        EvalCli.Result r = cli.run("--problems", problems.toString(), "--samples", samples.toString());
        expectUsage(r, samples + ": no usable sample; first bad line: " + samples + ":1: not JSON");
    }

    /** {@code --queue} is {@code sandbox.kind: queue}; either way a store without a queue is refused in the words typed. */
    @Test
    void queueingNeedsAStoreThatKeepsAQueueWhicheverWayItWasAskedFor() {
        expectUsage(cli.run("--problems", problems.toString(), "--queue"),
                "--queue: store.kind memory keeps no queue for other processes; running on workers needs store.kind: postgres");
        expectUsage(cli.run("--problems", problems.toString(), "--sandbox", "queue"),
                "sandbox.kind: queue: store.kind memory keeps no queue for other processes; running on workers needs store.kind: postgres");
    }

    private static void expectUsage(EvalCli.Result r, String message) {
        assertThat(r.status()).as(r.toString()).isEqualTo(2);
        assertThat(r.err().lines()).as(r.toString()).hasSize(1);
        assertThat(r.err()).as(r.toString()).startsWith("codeagent: ").contains(message).doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }
}
