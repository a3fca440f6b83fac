package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code ./codeagent} launcher as a user runs it: a separate JVM started by the bash script,
 * from another working directory. The jar is the one this build just packaged
 * ({@code CODEAGENT_SKIP_BUILD=1}: a test must not start a nested Maven build).
 */
@Tag("slow")
class LauncherIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path config;
    private final Map<Process, String> outputs = new HashMap<>();

    @BeforeEach
    void setUp() throws IOException {
        config = Files.writeString(dir.resolve("config.yaml"), "store:\n  kind: sqlite\n  sqlite:\n    path: " + dir.resolve("runs.db") + "\n");
    }

    @Test
    void execRunsAProgramAndMirrorsItsExitStatus() throws Exception {
        Result r = finish(start("import sys\nprint(1)\nprint('to stderr', file=sys.stderr)\nsys.exit(5)\n", "exec", "-"));
        assertThat(r.status).as(r.toString()).isEqualTo(5);
        assertThat(r.out).isEqualTo("1\n");
        assertThat(r.err).isEqualTo("to stderr\n");
    }

    @Test
    void badInputIsOneLineAndStatusTwo() throws Exception {
        Result r = finish(start("print(1)\n", "exec", "--timeout", "5x", "-"));
        assertThat(r.status).as(r.toString()).isEqualTo(2);
        assertThat(r.out).isEmpty();
        assertThat(r.err).startsWith("codeagent: ").doesNotContain("Exception").hasLineCount(1);
    }

    @Test
    void aTerminatedSolveRecordsItsRunAsCancelled() throws Exception {
        Process solve = startSlowSolve();
        String id = awaitRunning();
        solve.destroy(); // SIGTERM, as from Ctrl-C or kill
        assertThat(solve.waitFor(20, TimeUnit.SECONDS)).isTrue();
        JsonNode run = JSON.readTree(finish(start("", "runs", "show", "--json", id)).out);
        assertThat(run.get("status").asText()).isEqualTo("CANCELLED");
    }

    @Test
    void aKilledSolveIsMarkedInterruptedAtTheNextStart() throws Exception {
        Process solve = startSlowSolve();
        String id = awaitRunning();
        solve.destroyForcibly(); // SIGKILL: nothing of the JVM runs any more
        assertThat(solve.waitFor(20, TimeUnit.SECONDS)).isTrue();
        Result show = finish(start("", "runs", "show", id));
        assertThat(show.out).as(show.toString())
                .contains("status    ERROR (interrupted: the process ended before the run finished)");
    }

    /**
     * {@code eval} goes to the warm background process (its JVM, and its sandbox with the zygote, kept between
     * commands): the report is the one the command gives in a JVM of its own.
     */
    @Test
    void anEvaluationThroughTheBackgroundProcessReportsWhatOneInProcessDoes() throws Exception {
        Path runtime = Files.createDirectory(dir.resolve("runtime"),
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        Path data = Path.of(System.getenv().getOrDefault("CODEAGENT_DATA", "../../shared/data")).toAbsolutePath().normalize();
        Path humanEval = data.resolve("HumanEval.jsonl");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(humanEval), humanEval + " is not here");
        Path problems = Files.write(dir.resolve("five.jsonl"), Files.readAllLines(humanEval).subList(0, 5));
        Path samples = Files.writeString(dir.resolve("samples.jsonl"),
                "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return True\\n\"}\n"
                + "{\"task_id\": \"HumanEval/2\", \"completion\": \"    return number % 1.0\\n\"}\n");
        Map<String, String> viaDaemon = Map.of("CODEAGENT_NO_DAEMON", "0", "XDG_RUNTIME_DIR", runtime.toString());
        try {
            for (int call = 0; call < 2; call++) {
                Result warm = finish(start("", viaDaemon, "eval", "--problems", problems.toString(), "--samples",
                        samples.toString(), "--sandbox", "process", "--json"));
                Result alone = finish(start("", Map.of(), "eval", "--problems", problems.toString(), "--samples",
                        samples.toString(), "--sandbox", "process", "--json"));
                assertThat(warm.status).as(warm.toString()).isEqualTo(alone.status);
                JsonNode w = JSON.readTree(warm.out);
                JsonNode a = JSON.readTree(alone.out);
                assertThat(w.get("passed").asInt()).isEqualTo(a.get("passed").asInt()).isEqualTo(1);
                assertThat(w.get("verdicts")).isEqualTo(a.get("verdicts"));
            }
            try (var sockets = Files.list(runtime.resolve("codeagent"))) {
                assertThat(sockets.map(f -> f.getFileName().toString())).as("the background process's socket")
                        .anyMatch(f -> f.startsWith("cli-") && f.endsWith(".sock"));
            }
        } finally {
            stopBackgroundProcess(runtime.resolve("codeagent"));
        }
    }

    private static void stopBackgroundProcess(Path run) throws IOException {
        if (!Files.isDirectory(run)) {
            return;
        }
        try (var files = Files.list(run)) {
            for (Path info : files.filter(f -> f.getFileName().toString().endsWith(".sock.info")).toList()) {
                String pid = Files.readString(info).trim().split("\\s+")[0];
                ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroy);
            }
        }
    }

    /** A solve whose only attempt sleeps, so that it is RUNNING for a while. */
    private Process startSlowSolve() throws IOException {
        Path replay = Files.writeString(dir.resolve("slow.jsonl"),
                JSON.writeValueAsString(Map.of("reply", "```python\nimport time\ntime.sleep(8)\n```")) + "\n");
        return start("", "solve", "sleep a while", "--replay", replay.toString(), "--max-attempts", "1", "--timeout", "20s");
    }

    private String awaitRunning() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Result r = finish(start("", "runs", "--json"));
            for (JsonNode run : JSON.readTree(r.out)) {
                if (run.get("status").asText().equals("RUNNING")) {
                    return run.get("id").asText();
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no run became RUNNING within 30s");
    }

    private Process start(String stdin, String... args) throws IOException {
        return start(stdin, Map.of(), args);
    }

    private Process start(String stdin, Map<String, String> env, String... args) throws IOException {
        Path root = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(List.of(root.resolve("codeagent").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().put("CODEAGENT_SKIP_BUILD", "1");
        // these tests are about the launcher and a JVM's own death (SIGKILL must leave a run to be marked
        // interrupted); through the background process a killed client is a cancel instead (tested in adapter-cli)
        pb.environment().put("CODEAGENT_NO_DAEMON", "1");
        pb.environment().put("CODEAGENT_CONFIG", config.toString());
        pb.environment().putAll(env);
        String name = Long.toString(System.nanoTime());
        pb.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
        Process p = pb.start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        outputs.put(p, name);
        return p;
    }

    private Result finish(Process p) throws IOException, InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher did not finish in 60s");
        }
        String name = outputs.remove(p);
        return new Result(p.exitValue(), Files.readString(dir.resolve(name + ".out")), Files.readString(dir.resolve(name + ".err")));
    }

    private record Result(int status, String out, String err) {
    }
}
