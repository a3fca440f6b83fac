package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BootstrapTest {

    @Test
    void payloadIsALengthPrefixedJsonDocumentWithEverythingTheBootstrapNeeds() throws IOException {
        ResourceLimits limits = ResourceLimits.defaults().withCpuTime(Duration.ofMillis(1500)).withMaxFileBytes(999 * 1024 * 1024);
        ExecutionRequest r = new ExecutionRequest(new Program(Language.PYTHON, "print('é')", Map.of("data.txt", "d")), "in\n",
                List.of("a b"), limits);
        byte[] p = Bootstrap.payload(r, 64L * 1024 * 1024, "n0nce");
        String text = new String(p, StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        byte[] json = java.util.Arrays.copyOfRange(p, nl + 1, p.length);
        assertThat(Integer.parseInt(text.substring(0, nl))).isEqualTo(json.length);
        JsonNode n = new ObjectMapper().readTree(json);
        assertThat(n.path("files").path("main.py").asText()).isEqualTo("print('é')");
        assertThat(n.path("files").path("data.txt").asText()).isEqualTo("d");
        assertThat(n.path("stdin").asText()).isEqualTo("in\n");
        assertThat(n.path("argv").toString()).isEqualTo("[\"\",\"-B\",\"-E\",\"-s\",\"-u\",\"main.py\",\"a b\"]");
        assertThat(n.path("rlimits").path("RLIMIT_CPU").toString()).as("whole seconds, rounded up").isEqualTo("[2,3]");
        assertThat(n.path("rlimits").path("RLIMIT_FSIZE").get(0).asLong()).as("capped by the tmpfs").isEqualTo(64L * 1024 * 1024);
        assertThat(n.path("nonce").asText()).isEqualTo("n0nce");
        assertThat(n.path("backstop").asLong()).as("the wall time and the grace, in seconds")
                .isEqualTo(limits.wallTime().plus(Bootstrap.BACKSTOP_GRACE).toSeconds() + 1);
        assertThat(n.path("env").path("PATH").asText()).isNotBlank();
    }

    /** Where the group's exact figure holds the limit, RLIMIT_CPU (checked against clocks that run ahead) is a backstop behind it. */
    @Test
    void aGroupHeldCpuLimitLeavesRlimitCpuBehind() throws IOException {
        ResourceLimits twoSeconds = ResourceLimits.defaults().withCpuTime(Duration.ofMillis(2000));
        ExecutionRequest r = new ExecutionRequest(new Program(Language.PYTHON, "pass", Map.of()), "", List.of(), twoSeconds);
        JsonNode runc = json(Bootstrap.payload(r, 64L << 20, "n", null, Bootstrap.cpuBackstop(twoSeconds, true, false)));
        JsonNode runsc = json(Bootstrap.payload(r, 64L << 20, "n", null, Bootstrap.cpuBackstop(twoSeconds, true, true)));
        JsonNode noGroup = json(Bootstrap.payload(r, 64L << 20, "n", null, Bootstrap.cpuBackstop(twoSeconds, false, true)));
        assertThat(runc.path("rlimits").path("RLIMIT_CPU").toString()).as("the kernel's ticks: a second behind").isEqualTo("[3,4]");
        assertThat(runsc.path("rlimits").path("RLIMIT_CPU").toString())
                .as("gVisor's clock counts host preemption: the limit again and a second").isEqualTo("[5,6]");
        assertThat(noGroup.path("rlimits").path("RLIMIT_CPU").toString()).as("nothing else holds it: the limit itself")
                .isEqualTo("[2,3]");
    }

    private static JsonNode json(byte[] p) throws IOException {
        int nl = new String(p, StandardCharsets.UTF_8).indexOf('\n');
        return new ObjectMapper().readTree(java.util.Arrays.copyOfRange(p, nl + 1, p.length));
    }

    @Test
    void bashRunsThroughThePath() {
        assertThat(Bootstrap.interpreter(Language.BASH, ResourceLimits.defaults())).containsExactly("bash");
        assertThat(Bootstrap.interpreter(Language.JAVASCRIPT, ResourceLimits.defaults().withMemoryBytes(256L << 20)))
                .as("V8 sizes its heap from a flag, in both tiers").containsExactly("node", "--max-old-space-size=192");
    }

    @Test
    void noncesAreFreshAndHex() {
        String a = Bootstrap.newNonce();
        assertThat(a).matches("[0-9a-f]{32}");
        assertThat(Bootstrap.newNonce()).isNotEqualTo(a);
    }

    /**
     * Outside a container's pid 1 the supervisor would neither be safe from the program's signals nor
     * reach all its processes: it refuses, and says why once a payload comes. (The payload here is
     * malformed too, so even a bootstrap that failed to refuse could not start anything on the host.)
     */
    @Test
    void refusesToSuperviseUnlessItIsTheContainersInit() throws Exception {
        Path python = Path.of("/usr/bin/python3.11");
        assumeThat(Files.isExecutable(python)).as("a host python to run the bootstrap with").isTrue();
        List<String> cmd = new java.util.ArrayList<>(Bootstrap.COMMAND);
        cmd.set(0, python.toString());
        Process p = new ProcessBuilder(cmd).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write("2\n{}".getBytes(StandardCharsets.US_ASCII));
        }
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isEqualTo(Bootstrap.FAILED);
        assertThat(err).startsWith("codeagent-bootstrap: the supervisor is pid ").contains("not the container init");
        assertThat(p.getInputStream().readAllBytes()).as("no ack: nothing started").isEmpty();
    }

    @Test
    void theEmbeddedBootstrapIsValidPython() throws Exception {
        Path python = Path.of("/usr/bin/python3");
        assumeThat(Files.isExecutable(python)).as("a host python3 to compile with").isTrue();
        Process p = new ProcessBuilder(python.toString(), "-c", "import sys; compile(sys.stdin.read(), 'bootstrap', 'exec')")
                .redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(Bootstrap.COMMAND.get(Bootstrap.COMMAND.size() - 1).getBytes(StandardCharsets.UTF_8));
        }
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    }
}
