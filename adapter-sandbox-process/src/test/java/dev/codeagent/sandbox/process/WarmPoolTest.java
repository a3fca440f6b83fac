package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-sandbox supervisor, run by a real interpreter as pid 1 of a pid namespace of its own ({@code unshare},
 * root only) but outside bubblewrap.
 */
class WarmPoolTest {

    private static final String NONCE = "0123456789abcdef";

    @TempDir
    Path dir;

    private Process supervisor(String python) throws java.io.IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare"))
                && "root".equals(System.getProperty("user.name")), "needs root and unshare for a pid namespace");
        return new ProcessBuilder("/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--", python, "-S", "-c",
                WarmPool.BOOTSTRAP).directory(dir.toFile()).redirectErrorStream(true).start();
    }

    private String run(String python, String source) throws Exception {
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, "x"), "", ResourceLimits.defaults());
        byte[] job = WarmPool.job(List.of(python, "-S", "main.py"), Map.of("PATH", "/usr/bin"), Map.of("main.py", source),
                LaunchPlan.rlimits(request.limits(), true), request, NONCE);
        Process p = supervisor(python);
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private static String python() {
        return Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
    }

    @Test
    void theSupervisorReportsAnExitStatusAbove128AsAnExitStatus() throws Exception {
        assertThat(run(python(), "import os\nos._exit(137)\n"))
                .isEqualTo("\u0000codeagent:" + NONCE + ":{\"exit\": 137, \"signal\": null}\n");
        assertThat(Run.Report.parse("{\"exit\": 137, \"signal\": null}")).isEqualTo(new Run.Report(137, null));
    }

    @Test
    void theSupervisorReportsASignalAsASignal() throws Exception {
        assertThat(run(python(), "import os\nos.kill(os.getpid(), 9)\n"))
                .isEqualTo("\u0000codeagent:" + NONCE + ":{\"exit\": null, \"signal\": 9}\n");
        assertThat(Run.Report.parse("{\"exit\": null, \"signal\": 9}")).isEqualTo(new Run.Report(null, 9));
    }

    @Test
    void theSupervisorKillsWhatTheProgramLeftBeforeItReports() throws Exception {
        String out = run(python(), "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    print('survived')\n");
        assertThat(out).doesNotContain("survived").endsWith(":{\"exit\": 0, \"signal\": null}\n");
    }

    @Test
    void aSupervisorThatIsNotPid1RefusesTheJob() throws Exception {
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, "x"), "", ResourceLimits.defaults());
        byte[] job = WarmPool.job(List.of(python(), "main.py"), Map.of(), Map.of("main.py", "print(1)"), List.of(), request, NONCE);
        Process p = new ProcessBuilder(python(), "-S", "-c", WarmPool.BOOTSTRAP).directory(dir.toFile()).redirectErrorStream(true)
                .start();
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(125);
        assertThat(out).startsWith("codeagent-boot: the supervisor is pid").doesNotContain("codeagent:" + NONCE);
        assertThat(dir.resolve("main.py")).doesNotExist();
    }

    @Test
    void theBootstrapWritesTheFilesSetsTheLimitsAndBecomesTheProgramWithItsStdin() throws Exception {
        String python = Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
        Map<String, String> files = new LinkedHashMap<>();
        files.put("main.py", "import resource, sys, os\nfrom pkg.m import v\n"
                + "print(v, sys.argv[1:], os.environ['X'], resource.getrlimit(resource.RLIMIT_NOFILE), sys.stdin.read())\n");
        files.put("pkg/__init__.py", "");
        files.put("pkg/m.py", "v = 'ünï'\n");
        ResourceLimits limits = ResourceLimits.defaults().withCpuTime(Duration.ofSeconds(3));
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, "x"), "line 1\nline 2", limits);
        byte[] job = WarmPool.job(List.of(python, "-S", "main.py", "a b", "c"), Map.of("X", "y=z", "PATH", "/usr/bin"), files,
                LaunchPlan.rlimits(limits, true), request, NONCE);

        Process p = supervisor(python);
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).isEqualTo("ünï ['a b', 'c'] y=z (256, 256) line 1\nline 2\n"
                + "\u0000codeagent:" + NONCE + ":{\"exit\": 0, \"signal\": null}\n");
        assertThat(dir.resolve("pkg/m.py")).exists();
    }

    @Test
    void aBrokenJobIsReportedAsTheBootstrapsOwnFailure() throws Exception {
        String python = Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
        Files.createDirectories(dir);
        Process p = supervisor(python);
        p.getOutputStream().write("5\nbad!!".getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(125);
        assertThat(out).startsWith("codeagent-boot: ");
    }
}
