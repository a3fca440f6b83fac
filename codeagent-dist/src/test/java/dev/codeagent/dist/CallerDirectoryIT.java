package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every path a user gives means the same with and without the background process (which runs in /): a flag, a
 * {@code --set}, a {@code CODEAGENT_*} variable, and a config file named relatively with a relative path inside
 * (relative to the file's directory). Each form is run through the real launcher from a directory of its own, both
 * ways; nothing may appear at the filesystem root.
 */
@Tag("slow")
class CallerDirectoryIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path dir;
    private static Path runtime;

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("codeagent-caller-dir");
        runtime = Files.createDirectory(dir.resolve("runtime"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    @AfterAll
    static void stopBackgroundProcess() throws IOException {
        Path run = runtime.resolve("codeagent");
        if (Files.isDirectory(run)) {
            try (var files = Files.list(run)) {
                for (Path info : files.filter(f -> f.getFileName().toString().endsWith(".sock.info")).toList()) {
                    String pid = Files.readString(info).trim().split("\\s+")[0];
                    ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroy);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"daemon", "no-daemon"})
    void everyFormOfARelativePathMeansTheCallersDirectory(String way) throws Exception {
        Path caller = Files.createDirectories(dir.resolve(way).resolve("work"));
        Files.writeString(caller.resolve("reply.jsonl"),
                JSON.writeValueAsString(Map.of("reply", "```python\nprint(42)\n```")) + "\n");
        Files.writeString(caller.resolve("in.txt"), "7\n");
        Files.writeString(caller.resolve("expected.txt"), "42\n");
        Path conf = Files.createDirectories(dir.resolve(way).resolve("conf"));
        Files.writeString(conf.resolve("store.yaml"), "store:\n  kind: sqlite\n  sqlite:\n    path: ./my-runs.db\n");
        String solve = "print 42";

        // a flag
        Result flag = run(way, caller, Map.of(), "exec", "--stdin", "in.txt", "-", "import sys; print(int(sys.stdin.read()) * 6)");
        assertThat(flag.status).as(flag.toString()).isZero();
        assertThat(flag.out).isEqualTo("42\n");

        // --set, a CODEAGENT_* variable: the replay file relative to the caller
        Result set = run(way, caller, Map.of(), "solve", solve, "--expected-output", "expected.txt", "--set", "generator.kind=replay",
                "--set", "generator.replay.file=reply.jsonl", "--json");
        assertThat(set.status).as(set.toString()).isZero();
        Result env = run(way, caller, Map.of("CODEAGENT_GENERATOR", "replay", "CODEAGENT_GENERATOR_REPLAY_FILE", "reply.jsonl"),
                "solve", solve, "--expected-output", "expected.txt", "--json");
        assertThat(env.status).as(env.toString()).isZero();

        // a config file named relatively, with a relative path inside: the store lands beside the file
        Result configured = run(way, caller, Map.of(), "--config", "../conf/store.yaml", "solve", solve, "--expected-output", "expected.txt",
                "--set", "generator.kind=replay", "--set", "generator.replay.file=reply.jsonl", "--json");
        assertThat(configured.status).as(configured.toString()).isZero();
        Result runs = run(way, caller, Map.of(), "runs", "--config", "../conf/store.yaml", "--json");
        assertThat(runs.status).as(runs.toString()).isZero();
        assertThat(JSON.readTree(runs.out).size()).as(runs.toString()).isEqualTo(1);
        assertThat(conf.resolve("my-runs.db")).exists();
        assertThat(Path.of("/my-runs.db")).doesNotExist();
        assertThat(caller.resolve("my-runs.db")).doesNotExist();
    }

    /** Source given after {@code -} on stdin: the launcher's stdin carries the program; an exec arg carries it here. */
    private Result run(String way, Path cwd, Map<String, String> env, String... args) throws Exception {
        Path root = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(List.of(root.resolve("codeagent").toString()));
        String stdin = "";
        List<String> rest = new ArrayList<>(List.of(args));
        if (rest.size() >= 2 && rest.get(rest.size() - 2).equals("-")) {
            stdin = rest.remove(rest.size() - 1) + "\n";
        }
        command.addAll(rest);
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        Map<String, String> e = pb.environment();
        e.put("CODEAGENT_SKIP_BUILD", "1");
        e.put("CODEAGENT_CONFIG", "/dev/null");
        e.put("CODEAGENT_STORE", "memory");
        e.put("HOME", dir.toString());
        e.put("XDG_RUNTIME_DIR", runtime.toString());
        e.put("CODEAGENT_NO_DAEMON", way.equals("daemon") ? "0" : "1");
        e.putAll(env);
        if (rest.contains("--config")) {
            e.remove("CODEAGENT_STORE");
        }
        String name = way + "-" + System.nanoTime();
        pb.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
        Process p = pb.start();
        p.getOutputStream().write(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        p.getOutputStream().close();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the launcher did not finish in 90s: " + command);
        }
        return new Result(p.exitValue(), Files.readString(dir.resolve(name + ".out")), Files.readString(dir.resolve(name + ".err")));
    }

    private record Result(int status, String out, String err) {
    }
}
