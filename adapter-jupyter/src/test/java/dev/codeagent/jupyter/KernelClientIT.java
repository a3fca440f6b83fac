package dev.codeagent.jupyter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The codeagent kernel driven by Jupyter's own client library (Debian's python3-jupyter-client), the way a notebook
 * server drives it: a real kernel process started from its kernelspec, the real ZMQ wire, a real session in the
 * process tier. No mock of the protocol. The script reports what it saw; the host is checked afterwards (the kernel
 * and every sandbox process it started are gone after shutdown).
 */
@Tag("slow")
class KernelClientIT {

    @TempDir
    Path tmp;

    @Test
    void aJupyterClientRunsCellsInterruptsRestartsAndShutsTheKernelDown() throws Exception {
        boolean docker = dockerEngine();
        JsonNode r = runClient("kernel_client_check.py", docker ? List.of("docker") : List.of());

        assertThat(r.get("implementation").asText()).isEqualTo("codeagent");
        assertThat(r.get("protocol_version").asText()).isEqualTo("5.3");
        assertThat(r.get("one_plus_one").asText()).isEqualTo("2");
        assertThat(r.get("x_plus_one").asText()).as("state kept between cells").isEqualTo("42");
        assertThat(r.get("heart_beating").asBoolean()).isTrue();

        JsonNode silent = r.get("silent");
        assertThat(silent.get("status").asText()).isEqualTo("ok");
        assertThat(silent.get("quiet").asText()).as("a silent request still runs").isEqualTo("5");
        assertThat(silent.get("count_after").asInt()).as("but is not counted: only the two counted cells between")
                .isEqualTo(silent.get("count_before").asInt() + 2);
        assertThat(r.get("run_all").toString()).isEqualTo(
                "[[\"error\",\"ZeroDivisionError\"],[\"error\",\"ExecutionAborted\"],[\"error\",\"ExecutionAborted\"]]");
        assertThat(r.get("z_defined").asText()).as("the aborted cells did not run").isEqualTo("False\n");

        JsonNode shown = r.get("shown");
        assertThat(shown).hasSize(2);
        assertThat(shown.get(0).get("text/html").asText()).contains("<b>kept</b>").doesNotContain("script")
                .doesNotContain("onerror").doesNotContain("a.example");
        assertThat(shown.get(1).has("application/javascript")).as("JavaScript never reaches the page").isFalse();

        assertThat(r.get("interrupt").get("ename").asText()).isEqualTo("KeyboardInterrupt");
        assertThat(r.get("interrupt").get("seconds").asDouble()).as("the interrupt stopped the cell at once").isLessThan(10);
        assertThat(r.get("x_after_interrupt").asText()).as("an interrupt keeps the session's state").isEqualTo("42");

        assertThat(r.get("complete").toString()).isEqualTo("[\"%%solve\"]");
        assertThat(r.get("history").get("entries").asInt()).as("history is answered, empty").isZero();
        assertThat(r.get("is_complete").get(0).get("status").asText()).isEqualTo("complete");
        assertThat(r.get("is_complete").get(1).get("status").asText()).isEqualTo("incomplete");
        assertThat(r.get("is_complete").get(1).get("indent").asText()).isEqualTo("    ");
        assertThat(r.get("bad_magic").get("ename").asText()).isEqualTo("UsageError");
        assertThat(r.get("bad_magic").get("evalue").asText()).startsWith("%%solve: unknown option --tries")
                .doesNotContain("Exception").doesNotContain("\n");

        assertThat(r.get("died").get("ename").asText()).isEqualTo("KernelDied");
        assertThat(r.get("died").get("evalue").asText()).contains("state lost");
        assertThat(r.get("x_after_death").get("ename").asText()).as("the next cell runs, in a fresh kernel").isEqualTo("NameError");

        assertThat(r.get("timeout").get("ename").asText()).isEqualTo("CellTimeout");
        assertThat(r.get("timeout").get("evalue").asText()).contains("2000 ms");
        // what the notebook shows ends with the limit that fired, not a bare KeyboardInterrupt
        JsonNode shownErrors = r.get("timeout").get("shown");
        assertThat(shownErrors.get(shownErrors.size() - 1).asText()).startsWith("CellTimeout: ").contains("2000 ms");

        if (docker) {
            assertThat(r.get("sandbox_docker").asText()).contains("sandbox docker; a new session is starting");
            assertThat(r.get("in_docker").asText()).as("the cell ran in a container").isEqualTo("True\n");
        }

        assertThat(r.get("restarted_pid_differs").asBoolean()).isTrue();
        assertThat(r.get("old_kernel_alive_after_restart")).isEmpty();
        assertThat(r.get("y_after_restart").get("ename").asText()).as("Restart loses the state").isEqualTo("NameError");
        assertThat(r.get("after_restart").asText()).isEqualTo("42");

        assertThat(r.get("sandbox_processes_before_shutdown").asInt()).as("the session's sandbox ran under the kernel").isPositive();
        assertThat(r.get("left_after_shutdown")).as("processes left after shutdown").isEmpty();
    }

    /** Installs a kernelspec that starts the kernel from this test's class path, then runs a client script. */
    /** Docker tests skip without an engine on a developer machine and fail without one in CI. */
    private static boolean dockerEngine() throws Exception {
        if ("true".equals(System.getenv("CI"))) {
            return true;
        }
        try {
            Process p = new ProcessBuilder("docker", "info").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private JsonNode runClient(String script, List<String> args) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath, JupyterMain.class.getName(), "kernel",
                "--set", "sandbox.kind=process", "--set", "store.sqlite.path=" + tmp.resolve("runs.db"),
                "--set", "sandbox.docker.poolSize=0");
        Path data = KernelSpec.prefixDataDir(tmp.resolve("prefix"));
        new KernelSpec("codeagent", command).installInto(data);
        Path file = tmp.resolve(script);
        try (InputStream in = KernelClientIT.class.getResourceAsStream(script)) {
            Files.copy(in, file);
        }
        List<String> command2 = new ArrayList<>(List.of("/usr/bin/python3", file.toString()));
        command2.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command2).directory(tmp.toFile());
        pb.environment().put("JUPYTER_PATH", data.toString());
        pb.environment().put("JUPYTER_RUNTIME_DIR", tmp.resolve("runtime").toString());
        pb.environment().put("PYDEVD_DISABLE_FILE_VALIDATION", "1");
        pb.redirectError(tmp.resolve("client.err").toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(240, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("the Jupyter client did not finish in 240 s");
        }
        List<String> lines = new ArrayList<>(out.lines().toList());
        String err = Files.readString(tmp.resolve("client.err"));
        assertThat(p.exitValue()).as("client exit status; stdout:\n" + out + "\nstderr:\n" + err).isZero();
        assertThat(lines).as("stderr:\n" + err).isNotEmpty();
        return new ObjectMapper().readTree(lines.get(lines.size() - 1));
    }
}
