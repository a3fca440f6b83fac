package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real launcher on a host that gives the process tier no control groups: each command runs in a mount namespace
 * of its own with every cgroup filesystem unmounted ({@code unshare --mount}, then {@code umount -R -l
 * /sys/fs/cgroup}), as in a container that mounts none, and nothing in codeagent is told. Such a host used to run
 * everything quietly in {@code best-effort}: no whole-run limits, and a SIGXCPU a program sent itself at 0 s was a
 * TIME_LIMIT. Needs root (for the mount namespace), as the process tier's tests do.
 */
@Tag("slow")
class WithoutControlGroupsIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path config;

    @BeforeEach
    void setUp() throws IOException {
        config = Files.writeString(dir.resolve("config.yaml"), "store:\n  kind: sqlite\n  sqlite:\n    path: "
                + dir.resolve("runs.db") + "\nhttp:\n  auth:\n    enabled: false\n");
    }

    @Test
    void theCommandLineRunsButSaysOnEveryRunWhichGuaranteesItLacked() throws Exception {
        Path program = Files.writeString(dir.resolve("selfxcpu.py"), "import os\nprint('sending')\nos.kill(os.getpid(), 24)\n");
        Result r = run("exec", "--json", program.toString());
        JsonNode e = JSON.readTree(r.out);
        assertThat(e.get("isolation").toString()).as(r.toString()).doesNotContain("cgroup");
        assertThat(r.err).as(r.toString()).contains("codeagent: warning: this run had no cgroup-cpu, cgroup-memory, cgroup-pids")
                .contains("sandbox.isolation=strict");
        assertThat(r.err.lines().filter(l -> l.contains("warning"))).hasSize(1);
        // no group measured the run: the signal is the program's, not the CPU limit's
        assertThat(e.get("signal").asInt()).isEqualTo(24);
        assertThat(e.get("outcome").asText()).as(r.toString()).isEqualTo("RUNTIME_ERROR");
        assertThat(e.get("cpuTimeMs").isNull()).isTrue();
    }

    @Test
    void theServerRefusesToStartNamingEachMissingGuaranteeAndTheKeyThatAcceptsIt() throws Exception {
        Result r = run("serve", "--port", "0");
        assertThat(r.status).as(r.toString()).isEqualTo(1);
        // the server logs to stdout (see its logback.xml)
        assertThat(r.out + r.err).contains("sandbox.isolation is strict").contains("cgroup-memory", "cgroup-cpu", "cgroup-pids")
                .contains("--set sandbox.isolation=best-effort").doesNotContain("Exception");
    }

    @Test
    void aWorkerRefusesToStartToo() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        config = Files.writeString(dir.resolve("worker.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n");
        Result r = run("worker", "--exit-when-idle");
        assertThat(r.status).as(r.toString()).isNotZero();
        assertThat(r.err).contains("cgroup-memory", "cgroup-cpu", "cgroup-pids").contains("--set sandbox.isolation=best-effort");
    }

    @Test
    void theCommandLineIsStrictWhenAsked() throws Exception {
        Path program = Files.writeString(dir.resolve("one.py"), "print(1)\n");
        Result r = run("--set", "sandbox.isolation=strict", "exec", program.toString());
        assertThat(r.status).as(r.toString()).isEqualTo(125);
        assertThat(r.out).isEmpty();
        assertThat(r.err).contains("cgroup-memory", "cgroup-cpu", "cgroup-pids");
    }

    private Result run(String... args) throws IOException, InterruptedException {
        Path root = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--", "sh", "-c",
                "umount -R -l /sys/fs/cgroup || exit 97; if grep -q ' - cgroup' /proc/self/mountinfo; then exit 98; fi;"
                        + " exec \"$@\"", "sh", root.resolve("codeagent").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().put("CODEAGENT_SKIP_BUILD", "1");
        pb.environment().put("CODEAGENT_NO_DAEMON", "1");
        pb.environment().put("CODEAGENT_CONFIG", config.toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        String name = Long.toString(System.nanoTime());
        pb.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("codeagent " + String.join(" ", args) + " did not finish in 60s");
        }
        Result r = new Result(p.exitValue(), Files.readString(dir.resolve(name + ".out")), Files.readString(dir.resolve(name + ".err")));
        assertThat(r.status).as("the restricted environment could be made: " + r).isNotIn(97, 98);
        return r;
    }

    private record Result(int status, String out, String err) {
    }
}
