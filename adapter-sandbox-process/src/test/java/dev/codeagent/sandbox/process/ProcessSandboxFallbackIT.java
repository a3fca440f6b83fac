package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.application.sandbox.HostProbe;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fallbacks for hosts without bubblewrap (unshare as root; rlimits and an own uid as root) still
 * run programs, enforce the limits and leave no survivor — what they do not isolate they report missing. A host
 * without a C compiler keeps every guarantee: its in-sandbox supervisor is the Python build ({@link Supervisor}).
 */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcessSandboxFallbackIT {

    static Stream<Arguments> fallbacks() {
        HostTools host = HostTools.detect();
        return Stream.of(Arguments.of("unshare", host.withoutBwrap()), Arguments.of("plain", host.withoutBwrap().withoutUnshare()),
                Arguments.of("bwrap", host.withoutCompiler()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fallbacks")
    void runsLimitsAndKillsEverythingItStarted(String name, HostTools tools) throws Exception {
        assumeThat(tools.root() && tools.setpriv() != null && tools.prlimit() != null).as("root with setpriv and prlimit").isTrue();
        Path root = Files.createTempDirectory("codeagent-fallback-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        try (ProcessSandbox s = new ProcessSandbox(new ProcessSandboxConfig(null, null, null, root.toString()),
                IsolationMode.BEST_EFFORT, tools)) {
            assertThat(s.mode().name().toLowerCase()).isEqualTo(name);
            assertThat(s.isolation().features()).contains(IsolationFeature.RLIMITS, IsolationFeature.UNPRIVILEGED_UID);
            if (name.equals("bwrap")) {
                assumeThat(tools.bwrap()).as("bubblewrap").isNotNull();
                assertThat(s.isolation().features()).contains(IsolationFeature.FS_VIEW, IsolationFeature.INIT,
                        IsolationFeature.TMPFS_ONLY);
                // the Python supervisor reports the real wait status as the compiled one does
                Execution exit = s.execute(new ExecutionRequest(new Program(Language.PYTHON, "import os\nos._exit(137)"), "",
                        ResourceLimits.defaults()));
                assertThat(exit.exitCode()).as(exit.detail() + exit.stderr().text()).isEqualTo(137);
                assertThat(exit.signal()).isNull();
                Execution oom = s.execute(new ExecutionRequest(new Program(Language.PYTHON,
                        "print(open('/proc/self/oom_score_adj').read().strip())"), "", ResourceLimits.defaults()));
                assertThat(oom.stdout().text()).as("the program is the OOM killer's first choice").isEqualTo("1000\n");
            } else {
                assertThat(s.isolation().missing()).contains(IsolationFeature.FS_VIEW);
            }

            // a binary file is written byte for byte by every way of placing files (a host directory, the Python supervisor)
            Execution ok = s.execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import sys\nprint(sys.stdin.read(), open('b.dat', 'rb').read())", Map.of(), null, Map.of("b.dat", "AP+A")), "in",
                    ResourceLimits.defaults()));
            assertThat(ok.outcome()).as(ok.detail() + ok.stderr().text()).isEqualTo(Outcome.OK);
            assertThat(ok.stdout().text()).isEqualTo("in b'\\x00\\xff\\x80'\n");

            String marker = HostProbe.marker("fallback");
            String escape = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
                    + "        os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 60', '" + marker + "'])\n    os._exit(0)\n"
                    + "print('up', flush=True)\ntime.sleep(60)\n";
            Execution timeout = s.execute(new ExecutionRequest(new Program(Language.PYTHON, escape), "", List.of(marker),
                    ResourceLimits.defaults().withWallTime(Duration.ofSeconds(1))));
            assertThat(timeout.outcome()).isEqualTo(Outcome.TIME_LIMIT);
            assertThat(timeout.stdout().text()).isEqualTo("up\n");
            assertThat(HostProbe.processesWithArg(marker)).isEmpty();

            Execution memory = s.execute(new ExecutionRequest(new Program(Language.PYTHON, "x = bytearray(1 << 31)"), "",
                    ResourceLimits.defaults().withMemoryBytes(64 * ResourceLimits.MIB)));
            assertThat(memory.outcome()).isEqualTo(Outcome.MEMORY_LIMIT);
        } finally {
            WorkDir.delete(root);
        }
    }
}
