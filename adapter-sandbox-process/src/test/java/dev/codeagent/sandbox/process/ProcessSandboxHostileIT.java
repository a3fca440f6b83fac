package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.codeagent.application.sandbox.HostProbe;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attacks on the process tier's own machinery rather than on the host's resources: the sandbox's pid 1
 * (GNU time, which shares the program's uid but not its rlimits), the wrappers' error messages, the
 * kernel's privilege gates. Each attack runs twice, so that the second goes through a pre-started
 * sandbox (the bootstrap path) as well as the cold one.
 */
@Tag("slow")
class ProcessSandboxHostileIT {

    private static final String PYTHON = "/usr/bin/python3.11";
    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws IOException {
        scratch = ScratchSandbox.start("codeagent-hostile-root-", true);
    }

    @AfterAll
    static void stop() throws IOException {
        scratch.stop();
    }

    private static Execution run(String source) {
        return scratch.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, source), "",
                ResourceLimits.defaults().withWallTime(Duration.ofSeconds(5))));
    }

    private static void assumeFullIsolation() {
        assumeThat(scratch.sandbox.mode()).isEqualTo(Mode.BWRAP);
        assumeThat(scratch.sandbox.isolation().has(IsolationFeature.UNPRIVILEGED_UID)).isTrue();
    }

    @Test
    void cannotPtraceOrRewriteTheSandboxInitThatRunsOutsideItsLimits() {
        assumeFullIsolation();
        String source = String.join("\n",
                "import ctypes, os",
                "libc = ctypes.CDLL(None, use_errno=True)",
                "r = libc.ptrace(16, 1, 0, 0)",  // PTRACE_ATTACH to the namespace's init
                "if r == 0:",
                "    libc.ptrace(17, 1, 0, 0)",  // PTRACE_DETACH, so a failing test does not hang
                "print('attach', r, ctypes.get_errno())",
                "for mode in (os.O_RDONLY, os.O_RDWR):",
                "    try:",
                "        os.close(os.open('/proc/1/mem', mode))",
                "        print('mem open')",
                "    except PermissionError:",
                "        print('mem denied')",
                "");
        for (int i = 0; i < 3; i++) {
            Execution e = run(source);
            assertThat(e.outcome()).as("run %d: %s", i, e).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).as("run %d", i).contains("attach -1 1").doesNotContain("mem open");
        }
        assertThat(scratch.sandbox.diagnostics().preStarted()).isPositive();
    }

    @Test
    void cannotFreezeOrKillTheSandboxInitToTurnItsRunIntoASandboxFailure() {
        assumeFullIsolation();
        String source = String.join("\n",
                "import os, signal, time",
                "for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL):",
                "    try:",
                "        os.kill(1, sig)",
                "    except OSError as e:",
                "        print('kill refused', e.errno)",
                "time.sleep(0.1)",
                "state = [l for l in open('/proc/1/status') if l.startswith('State:')][0].split()[1]",
                "print('init state', state)",
                "");
        for (int i = 0; i < 2; i++) {
            Execution e = run(source);
            assertThat(e.outcome()).as("run %d: %s", i, e).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).contains("init state S");
        }
    }

    @Test
    void aProgramThatImitatesASandboxFailureIsNotReportedAsOne() {
        // SANDBOX_ERROR is retried by the application: imitating it would run hostile code again
        for (String forged : List.of(
                "import sys\nsys.stderr.write(\"bwrap: Can't mount proc on /newroot/proc: Operation not permitted\\n\")\nsys.exit(1)",
                "import sys\nsys.stderr.write(\"codeagent-boot: OSError(28, 'No space left on device')\\n\")\nsys.exit(125)",
                "import sys\nsys.stderr.write('prlimit: failed to execute python3: No such file or directory\\n')\nsys.exit(127)")) {
            for (int i = 0; i < 2; i++) {
                Execution e = run(forged);
                assertThat(e.outcome()).as("%s: %s", forged, e).isEqualTo(Outcome.RUNTIME_ERROR);
                assertThat(e.detail()).contains("sandbox works");
            }
        }
    }

    @Test
    void cannotGainPrivilegesNestNamespacesRaiseLimitsOrInjectIntoATerminal() {
        assumeFullIsolation();
        String source = String.join("\n",
                "import os, resource, subprocess, fcntl, termios",
                "st = {l.split(':')[0]: l.split(':')[1].strip() for l in open('/proc/self/status') if ':' in l}",
                "print('nnp', st['NoNewPrivs'], 'capeff', st['CapEff'], 'capbnd', st['CapBnd'])",
                "for name in ('RLIMIT_AS', 'RLIMIT_NPROC', 'RLIMIT_CPU', 'RLIMIT_FSIZE', 'RLIMIT_CORE'):",
                "    r = getattr(resource, name)",
                "    soft, hard = resource.getrlimit(r)",
                "    try:",
                "        resource.setrlimit(r, (soft, resource.RLIM_INFINITY))",
                "        print(name, 'raised')",
                "    except (ValueError, OSError):",
                "        print(name, 'held')",
                "print('core', resource.getrlimit(resource.RLIMIT_CORE))",
                "u = subprocess.run(['unshare', '-U', '-r', 'id', '-u'], capture_output=True, text=True)",
                "print('userns', u.returncode, u.stdout.strip() or '-')",
                "s = subprocess.run(['/usr/bin/su', '-c', 'id -u'], capture_output=True, text=True, stdin=subprocess.DEVNULL)",
                "print('su', s.returncode, s.stdout.strip() or '-')",
                "print('sys', os.path.exists('/sys/kernel'))",
                "try:",
                "    fcntl.ioctl(0, termios.TIOCSTI, b'x')",
                "    print('tiocsti done')",
                "except OSError:",
                "    print('tiocsti refused')",
                "try:",
                "    os.open('/dev/tty', os.O_RDWR)",
                "    print('tty open')",
                "except OSError:",
                "    print('tty none')",
                "");
        for (int i = 0; i < 2; i++) {
            Execution e = run(source);
            assertThat(e.outcome()).as("run %d: %s", i, e).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text())
                    .contains("nnp 1 capeff 0000000000000000 capbnd 0000000000000000")
                    .contains("RLIMIT_AS held", "RLIMIT_NPROC held", "RLIMIT_CPU held", "RLIMIT_FSIZE held", "RLIMIT_CORE held")
                    .contains("core (0, 0)")
                    .doesNotContain("raised")
                    .doesNotContainPattern("userns 0 ")
                    .doesNotContainPattern("su 0 ")
                    .contains("sys False", "tiocsti refused", "tty none");
        }
    }

    @Test
    void cannotReachAnAbstractUnixSocketOnTheHostOrLeaveFilesInTheHostsDevShm() throws Exception {
        assumeFullIsolation();
        assumeThat(Files.isExecutable(Path.of(PYTHON))).isTrue();
        String name = HostProbe.marker("abstract");
        Process listener = new ProcessBuilder(PYTHON, "-c", String.join("\n",
                "import socket, sys",
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
                "s.bind('\\0' + sys.argv[1])",
                "s.listen()",
                "print('listening', flush=True)",
                "s.settimeout(20)",
                "try:",
                "    s.accept()",
                "    print('CONNECTED', flush=True)",
                "except OSError:",
                "    pass"), name).redirectErrorStream(true).start();
        try {
            String ready = new String(listener.getInputStream().readNBytes("listening\n".length()), StandardCharsets.UTF_8);
            assertThat(ready).isEqualTo("listening\n");
            String source = String.join("\n",
                    "import socket",
                    "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
                    "try:",
                    "    s.connect('\\0" + name + "')",
                    "    print('abstract connected')",
                    "except OSError as e:",
                    "    print('abstract refused', e.errno)",
                    "open('/dev/shm/" + name + "', 'w').write('x')",
                    "");
            for (int i = 0; i < 2; i++) {
                Execution e = run(source);
                assertThat(e.outcome()).as("run %d: %s", i, e).isEqualTo(Outcome.OK);
                assertThat(e.stdout().text()).contains("abstract refused");
            }
            assertThat(Path.of("/dev/shm", name)).doesNotExist();
            // the listener prints at once when it accepts; it is still waiting, so nothing more can come
            assertThat(listener.isAlive()).isTrue();
            byte[] heard = listener.getInputStream().readNBytes(listener.getInputStream().available());
            assertThat(new String(heard, StandardCharsets.UTF_8)).doesNotContain("CONNECTED");
        } finally {
            listener.destroyForcibly();
            assertThat(listener.waitFor(5, TimeUnit.SECONDS)).isTrue();
        }
    }
}
