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

/** The bootstrap of pre-started sandboxes, run by a real interpreter outside any sandbox. */
class WarmPoolTest {

    @TempDir
    Path dir;

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
                LaunchPlan.rlimits(limits, true), request);

        Process p = new ProcessBuilder(python, "-S", "-c", WarmPool.BOOTSTRAP).directory(dir.toFile()).redirectErrorStream(true)
                .start();
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).isEqualTo("ünï ['a b', 'c'] y=z (256, 256) line 1\nline 2\n");
        assertThat(dir.resolve("pkg/m.py")).exists();
    }

    @Test
    void aBrokenJobIsReportedAsTheBootstrapsOwnFailure() throws Exception {
        String python = Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
        Files.createDirectories(dir);
        Process p = new ProcessBuilder(python, "-S", "-c", WarmPool.BOOTSTRAP).directory(dir.toFile()).redirectErrorStream(true)
                .start();
        p.getOutputStream().write("5\nbad!!".getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(125);
        assertThat(out).startsWith("codeagent-boot: ");
    }
}
