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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The in-sandbox supervisor's contract, held by both its builds ({@link Supervisor}: the compiled C one and the
 * Python one), each run as pid 1 of a pid namespace of its own ({@code unshare}, root only) but outside
 * bubblewrap.
 */
class SupervisorTest {

    private static final String NONCE = "0123456789abcdef";

    @TempDir
    Path dir;
    @TempDir
    static Path binRoot;

    /** The supervisor's command on the host: the compiled binary, or the host's Python running the script. */
    static List<List<String>> builds() {
        Path cc = HostTools.find("cc");
        org.junit.jupiter.api.Assumptions.assumeTrue(cc != null && "root".equals(System.getProperty("user.name")),
                "needs root and a C compiler for the compiled supervisor");
        Path binary = ExecuteOnlyCopy.compiled(cc, binRoot, "supervisor.c").orElseThrow(() -> new AssertionError("the supervisor did not compile"));
        return List.of(List.of(binary.toString()), Supervisor.python(Path.of(python())).argv());
    }

    private Process supervisor(List<String> build) throws java.io.IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/unshare"))
                && "root".equals(System.getProperty("user.name")), "needs root and unshare for a pid namespace");
        List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--"));
        cmd.addAll(build);
        return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    }

    private String run(List<String> build, String source) throws Exception {
        String python = python();
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, "x"), "", ResourceLimits.defaults());
        byte[] job = WarmPool.job(List.of(python, "-S", "main.py"), Map.of("PATH", "/usr/bin"), Map.of("main.py", source),
                LaunchPlan.rlimits(request.limits(), true), request, NONCE);
        Process p = supervisor(build);
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private static String python() {
        return Interpreters.nativeBinary(Path.of("/usr/bin/python3")).map(Path::toString).orElse("/usr/bin/python3.11");
    }

    @ParameterizedTest
    @MethodSource("builds")
    void theSupervisorReportsAnExitStatusAbove128AsAnExitStatus(List<String> build) throws Exception {
        assertThat(run(build, "import os\nos._exit(137)\n"))
                .isEqualTo("\u0000codeagent:" + NONCE + ":{\"exit\": 137, \"signal\": null}\n");
        assertThat(Child.Report.parse("{\"exit\": 137, \"signal\": null}")).isEqualTo(new Child.Report(137, null));
    }

    @ParameterizedTest
    @MethodSource("builds")
    void theSupervisorReportsASignalAsASignal(List<String> build) throws Exception {
        assertThat(run(build, "import os\nos.kill(os.getpid(), 9)\n"))
                .isEqualTo("\u0000codeagent:" + NONCE + ":{\"exit\": null, \"signal\": 9}\n");
        assertThat(Child.Report.parse("{\"exit\": null, \"signal\": 9}")).isEqualTo(new Child.Report(null, 9));
    }

    @ParameterizedTest
    @MethodSource("builds")
    void theSupervisorKillsWhatTheProgramLeftBeforeItReports(List<String> build) throws Exception {
        String out = run(build, "import os, time\nif os.fork() == 0:\n    time.sleep(30)\n    print('survived')\n");
        assertThat(out).doesNotContain("survived").endsWith(":{\"exit\": 0, \"signal\": null}\n");
    }

    @ParameterizedTest
    @MethodSource("builds")
    void aSupervisorThatIsNotPid1RefusesTheJob(List<String> build) throws Exception {
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, "x"), "", ResourceLimits.defaults());
        byte[] job = WarmPool.job(List.of(python(), "main.py"), Map.of(), Map.of("main.py", "print(1)"), List.of(), request, NONCE);
        Process p = new ProcessBuilder(build).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(125);
        assertThat(out).startsWith("codeagent-boot: the supervisor is pid").doesNotContain("codeagent:" + NONCE);
        assertThat(dir.resolve("main.py")).doesNotExist();
    }

    @ParameterizedTest
    @MethodSource("builds")
    void theSupervisorWritesTheFilesSetsTheLimitsAndStartsTheProgramWithItsStdin(List<String> build) throws Exception {
        String python = python();
        Map<String, String> files = new LinkedHashMap<>();
        files.put("main.py", "import resource, sys, os, signal\nfrom pkg.m import v\n"
                + "print(v, sys.argv[1:], os.environ['X'], resource.getrlimit(resource.RLIMIT_NOFILE), sys.stdin.read())\n"
                + "print(repr(open('pkg/data.txt', encoding='utf-8', errors='surrogateescape').read()))\n"
                + "print(signal.getsignal(signal.SIGPIPE) == signal.SIG_DFL, open('/proc/self/oom_score_adj').read().strip())\n");
        files.put("pkg/__init__.py", "");
        files.put("pkg/m.py", "v = 'ünï'\n");
        // what JSON escapes and what it does not: a NUL, controls, quotes, a surrogate pair, a slash
        files.put("pkg/data.txt", "a\u0000b\t\"q\"\\ \uD83D\uDE00 \u20ac/");
        ResourceLimits limits = ResourceLimits.defaults().withCpuTime(Duration.ofSeconds(3));
        ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON, "x"), "line 1\nline 2", limits);
        byte[] job = WarmPool.job(List.of(python, "-S", "main.py", "a b", "c"), Map.of("X", "y=z", "PATH", "/usr/bin"), files,
                LaunchPlan.rlimits(limits, true), request, NONCE);

        Process p = supervisor(build);
        p.getOutputStream().write(job);
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).isEqualTo("ünï ['a b', 'c'] y=z (256, 256) line 1\nline 2\n"
                + "'a\\x00b\\t\"q\"\\\\ 😀 €/'\n"
                + "False 1000\n"
                + "\u0000codeagent:" + NONCE + ":{\"exit\": 0, \"signal\": null}\n");
        assertThat(dir.resolve("pkg/m.py")).exists();
    }

    @ParameterizedTest
    @MethodSource("builds")
    void aBrokenJobIsReportedAsTheSupervisorsOwnFailure(List<String> build) throws Exception {
        Process p = supervisor(build);
        p.getOutputStream().write("5\nbad!!".getBytes(StandardCharsets.US_ASCII));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).isEqualTo(125);
        assertThat(out).startsWith("codeagent-boot: ");
    }
}
