package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.HostProbe;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the zygote must add to the tier's guarantees: one forked program cannot see, signal or influence the next or
 * a neighbour forked from the same interpreter — not by files, environment, module state, monkeypatches, leftover
 * threads or processes — and the zygote itself never holds a program's code, input or output, so no later fork
 * can find them in the memory it inherits.
 */
@Tag("slow")
class ProcessZygoteIsolationIT {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.forking("codeagent-zygote-isolation-");
    }

    @AfterAll
    static void stop() throws Exception {
        if (scratch != null) {
            scratch.stop();
        }
    }

    private static Execution run(String code, String stdin, String... args) {
        ResourceLimits limits = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10)).withCpuTime(Duration.ofSeconds(10));
        return scratch.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, code), stdin, List.of(args), limits));
    }

    /** As on the cold path: the program, not its run's init (pid 1 of its namespace), is the OOM killer's first choice. */
    @Test
    void theProgramNotItsInitIsTheOomKillersFirstChoice() {
        Execution e = run("print(open('/proc/self/oom_score_adj').read().strip(), open('/proc/1/oom_score_adj').read().strip())", "");
        assertThat(e.stdout().text()).as(e.toString()).isEqualTo("1000 0\n");
    }

    /**
     * As on the cold path: the run's init (pid 1 of its namespace) killed from outside the run ends its program with
     * SIGKILL, which the program cannot bring about (its init is root's and its namespace's init): the sandbox's error,
     * never the program's death by signal 9.
     */
    @Test
    void anInitKilledFromOutsideTheRunIsTheSandboxsErrorNotTheProgramsDeath() throws Exception {
        String marker = HostProbe.marker("zygote-outside-kill");
        CompletableFuture<Execution> run = CompletableFuture.supplyAsync(() -> run(
                "import time\nprint('up', flush=True)\ntime.sleep(30)", "", marker));
        HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(10));
        long program = HostProbe.processesWithArg(marker).get(0);
        Path namespace = Files.readSymbolicLink(Path.of("/proc", Long.toString(program), "ns", "pid"));
        long init = -1;
        try (var pids = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) pids::iterator) {
                String name = p.getFileName().toString();
                try {
                    if (name.matches("\\d+") && Files.readSymbolicLink(p.resolve("ns/pid")).equals(namespace)
                            && Files.readString(p.resolve("status")).matches("(?s).*\\nNSpid:[^\\n]*\\s1\\n.*")) {
                        init = Long.parseLong(name);
                    }
                } catch (IOException gone) {
                    // ended meanwhile, or not ours to read
                }
            }
        }
        assertThat(init).as("the run's init").isPositive();
        assertThat(new ProcessBuilder("kill", "-KILL", Long.toString(init)).start().waitFor()).isZero();

        Execution e = run.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(e.outcome()).as(e.toString()).isEqualTo(Outcome.SANDBOX_ERROR);
        assertThat(e.detail()).contains("killed from outside the run");
        assertThat(HostProbe.processesWithArg(marker)).isEmpty();
        assertThat(run("print('next')", "").stdout().text()).as("the zygote serves the next run").isEqualTo("next\n");
    }

    /**
     * A forked program runs, and writes, before the host watches its run and sets its output caps; what arrived by
     * then once stayed whole (100 kB of stderr under a 4 KiB cap ended OK, a flake of the contract's capsStderrToo).
     */
    @Test
    void outputWrittenBeforeTheRunIsWatchedIsStillCapped() {
        ResourceLimits limits = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10)).withMaxOutputBytes(4096);
        for (int i = 0; i < 20; i++) {
            Execution e = scratch.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import os\nos.write(2, b'e' * 100000)\nos.write(1, b'o' * 100000)\n"), "", List.of(), limits));
            assertThat(e.outcome()).as("run %d: %s bytes of stderr", i, e.stderr().text().length()).isEqualTo(Outcome.OUTPUT_LIMIT);
            assertThat(e.stderr().text().length()).as("run %d: stderr kept", i).isLessThanOrEqualTo(4096);
            assertThat(e.stdout().text().length()).as("run %d: stdout kept", i).isLessThanOrEqualTo(4096);
            assertThat(e.stdout().truncated() || e.stderr().truncated()).isTrue();
        }
    }

    @Test
    void aProgramLeavesNothingForTheNext() {
        Execution first = run("""
                import os, sys, math, json, threading, time, subprocess
                open('/tmp/left', 'w').write('x'); open('/work/left', 'w').write('x'); open('/dev/shm/left', 'w').write('x')
                os.environ['LEFT'] = '1'
                math.pi = 3
                json.dumps = lambda *a, **k: 'patched'
                sys.modules['string'] = None
                threading.Thread(target=lambda: time.sleep(60), daemon=True).start()
                subprocess.Popen(['sleep', '60'])
                print('left')
                import builtins; builtins.len = lambda x: 0; builtins.sorted = None
                """, "");
        assertThat(first.outcome()).as(first.stderr().text()).isEqualTo(Outcome.OK);
        Execution next = run("""
                import os, sys, math, json, threading, string
                print([p for p in ('/tmp/left', '/work/left', '/dev/shm/left') if os.path.exists(p)])
                print(os.environ.get('LEFT'), math.pi == 3.141592653589793, json.dumps(1), len('ab'))
                print(threading.active_count(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
                """, "");
        assertThat(next.outcome()).as(next.stderr().text()).isEqualTo(Outcome.OK);
        // pid 1 is the run's init, 2 the program: nothing else, and nothing of the first run
        assertThat(next.stdout().text()).isEqualTo("[]\nNone True 1 2\n1 [1, 2]\n");
    }

    @Test
    void aProgramCannotSeeOrSignalAProgramForkedBesideIt() throws Exception {
        String marker = HostProbe.marker("zygote-neighbour");
        CompletableFuture<Execution> neighbour = CompletableFuture.supplyAsync(() -> run(
                "import time\nprint('up', flush=True)\ntime.sleep(2)\nprint('survived')", "", marker));
        HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(10));
        assertThat(HostProbe.processesWithArg(marker)).as("the neighbour runs").isNotEmpty();
        Execution attacker = run("""
                import os, signal
                seen = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
                try:
                    os.kill(-1, signal.SIGKILL)
                except OSError as e:
                    pass
                results = []
                for pid in range(1, 4096):
                    try:
                        os.kill(pid, 0)
                        results.append(pid)
                    except OSError:
                        pass
                print(seen, results)
                """, "");
        // its own namespace only: itself and its init, which it cannot signal (root's, and the namespace's init)
        assertThat(attacker.stdout().text()).isEqualTo("[1, 2] [2]\n");
        Execution n = neighbour.get();
        assertThat(n.outcome()).isEqualTo(Outcome.OK);
        assertThat(n.stdout().text()).isEqualTo("up\nsurvived\n");
    }

    /**
     * Found by an adversarial review: a program ran on the zygote's own call stack and could read its loop's locals
     * (the previous run's token and exit status, pending host commands), and the previous run's status line stayed in
     * the zygote's heap. An exit status is the program's to set: 8 bits from one program to the next.
     */
    @Test
    void anEarlierProgramsExitStatusIsNotInTheNextOnesMemory() {
        assertThat(run("import sys\nsys.exit(167)", "").exitCode()).isEqualTo(167);
        Execution e = run("""
                import sys, re
                frames = []
                f = sys._getframe()
                while f is not None:
                    frames.append(f.f_code.co_name)
                    f = f.f_back
                found = []
                # (written so that this program's own text does not match it)
                pattern = re.compile(rb'S [0-9a-f]{32} 1(6)7 -|S 1(6)7 -')
                mem = open('/proc/self/mem', 'rb', 0)
                for line in open('/proc/self/maps'):
                    fields = line.split()
                    if 'r' not in fields[1] or (len(fields) > 5 and fields[5].startswith('[v')):
                        continue
                    lo, hi = (int(x, 16) for x in fields[0].split('-'))
                    try:
                        mem.seek(lo)
                        found += pattern.findall(mem.read(hi - lo))
                    except OSError:
                        pass
                print('frames', [n for n in frames if n in ('serve', 'command', 'relay')])
                print('found', len([x for x in found if x]))
                """, "");
        assertThat(e.stdout().text()).as(e.stderr().text()).isEqualTo("frames []\nfound 0\n");
    }

    /**
     * Found by an attack review of the spawned init: the program is the zygote's own child, so a process it cloned
     * with CLONE_PARENT was the zygote's too, never waited for; its zombie kept the namespace's init from ending, and
     * a run that printed and exited at once was reported TIME_LIMIT (and its uid retired). The filter refuses it.
     */
    @Test
    void aProcessClonedAsTheZygotesChildDoesNotHangTheRun() {
        long t0 = System.nanoTime();
        Execution e = run("""
                import ctypes, os
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall.restype = ctypes.c_long
                pid = libc.syscall(56, 0x00008000 | 17, 0, 0, 0, 0)  # clone(CLONE_PARENT | SIGCHLD)
                if pid == 0:
                    os._exit(0)
                print('cloned' if pid > 0 else 'refused', ctypes.get_errno() if pid < 0 else '')
                """, "");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("refused 1\n");
        assertThat(ms).as("wall ms").isLessThan(5000);
    }

    /**
     * Found by an attack review: every run shared the zygote's session and process group, so kill(0, SIGCONT) (or
     * kill(getppid()), which is 0 here) reached a neighbour's handler: the one signal a session lets through whatever
     * the uid. Each run now has a session of its own.
     */
    @Test
    void aProgramsKillZeroDoesNotReachANeighbourRun() throws Exception {
        String marker = HostProbe.marker("zygote-cont-victim");
        CompletableFuture<Execution> neighbour = CompletableFuture.supplyAsync(() -> run("""
                import signal, time
                got = []
                signal.signal(signal.SIGCONT, lambda s, f: got.append(s))
                end = time.time() + 4
                while time.time() < end:
                    time.sleep(0.05)
                print('got', len(got))
                """, "", marker));
        HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(10));
        Thread.sleep(300);
        Execution attacker = run("import os, signal\nos.kill(0, signal.SIGCONT)\nos.kill(os.getppid(), signal.SIGCONT)\n"
                + "print('sent')", "");
        assertThat(attacker.stdout().text()).as(attacker.stderr().text()).isEqualTo("sent\n");
        Execution n = neighbour.get();
        assertThat(n.outcome()).isEqualTo(Outcome.OK);
        assertThat(n.stdout().text()).isEqualTo("got 0\n");
    }

    /**
     * Found while measuring: the zygote was started by whichever thread first needed it, and bubblewrap's
     * die-with-parent (PR_SET_PDEATHSIG) fires when that thread ends, so the zygote died with the evaluation that
     * started it. It is now started by the sandbox's own thread: it outlives the thread that asked.
     */
    @Test
    void theZygoteOutlivesTheThreadThatFirstNeededIt() throws Exception {
        String zygotes = "/.codeagent-zygote/zygote.py";
        List<Long> others = HostProbe.processesWithArg(zygotes);
        ScratchSandbox fresh = ScratchSandbox.forking("codeagent-zygote-thread-");
        try {
            ResourceLimits limits = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10));
            // (the sandbox starts its zygote when it is made, on this thread: that one is ended, and the next
            // request, on a thread of its own, starts another)
            fresh.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, "print(0)"), "", List.of(), limits));
            List<Long> eager = new java.util.ArrayList<>(HostProbe.processesWithArg(zygotes));
            eager.removeAll(others);
            for (long pid : eager) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            Thread.sleep(300);
            others = new java.util.ArrayList<>(HostProbe.processesWithArg(zygotes));
            Thread first = new Thread(() -> fresh.sandbox.execute(
                    new ExecutionRequest(new Program(Language.PYTHON, "print(1)"), "", List.of(), limits)));
            first.start();
            first.join();
            List<Long> started = new java.util.ArrayList<>(HostProbe.processesWithArg(zygotes));
            started.removeAll(others);
            assertThat(started).as("the fresh sandbox's zygote").isNotEmpty();
            Thread.sleep(500);
            Execution next = fresh.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, "print(2)"), "", List.of(), limits));
            assertThat(next.stdout().text()).isEqualTo("2\n");
            assertThat(HostProbe.processesWithArg(zygotes)).as("the same zygote, alive").containsAll(started);
        } finally {
            fresh.stop();
        }
    }

    /**
     * The run's init is the compiled launcher, spawned, not a fork of the zygote: the orphans a program leaves are
     * still reaped (no zombie piles up against its process limit), and the program is the zygote's own child.
     */
    @Test
    void theOrphansAProgramLeavesAreReapedByItsInit() {
        Execution e = run("""
                import os, time
                for _ in range(20):
                    if os.fork() == 0:
                        if os.fork() == 0:
                            os._exit(0)
                        time.sleep(0.2)
                        os._exit(0)
                for _ in range(20):
                    os.wait()
                time.sleep(0.5)
                states = []
                for p in os.listdir('/proc'):
                    if p.isdigit():
                        states.append(open('/proc/%s/stat' % p).read().rsplit(')', 1)[1].split()[0])
                print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit())[:2], states.count('Z'), os.getppid())
                """, "");
        assertThat(e.stdout().text()).as(e.stderr().text()).isEqualTo("[1, 2] 0 0\n");
    }

    /** Found by an adversarial review: every fork shared the zygote's devpts instance, so neighbours' terminals showed. */
    @Test
    void aProgramHasPseudoTerminalsOfItsOwn() throws Exception {
        String marker = HostProbe.marker("zygote-pty");
        CompletableFuture<Execution> holder = CompletableFuture.supplyAsync(() -> run(
                "import os, time\nheld = [os.openpty() for _ in range(3)]\nprint('held', flush=True)\ntime.sleep(3)", "", marker));
        HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(10));
        Thread.sleep(300); // its terminals opened
        Execution looker = run("""
                import os
                master, slave = os.openpty()
                print(sorted(n for n in os.listdir('/dev/pts') if n.isdigit()), os.ttyname(slave))
                """, "");
        assertThat(looker.stdout().text()).as(looker.stderr().text()).isEqualTo("['0'] /dev/pts/0\n");
        assertThat(holder.get().stdout().text()).isEqualTo("held\n");
    }

    @Test
    void theZygotesWiringIsCoveredBeforeTheProgramRuns() {
        Execution e = run("""
                import os, socket
                for d in ('/.codeagent-zygote', '/sys', '/.codeagent-zygote/door'):
                    try:
                        print(d, os.listdir(d))
                    except OSError as e:
                        print(d, type(e).__name__)
                s = socket.socket(socket.AF_UNIX)
                try:
                    s.connect('/.codeagent-zygote/door/door')
                    print('door open')
                except OSError as e:
                    print('door', type(e).__name__)
                s.close()
                print(os.getuid() != 0, open('/proc/self/status').read().split('CapEff:')[1].split()[0])
                # nothing of the zygote's or the run's init's is open in the program: its three streams only
                print(sorted(int(fd) for fd in os.listdir('/proc/self/fd')))
                for pid in ('1', 'self'):
                    try:
                        print(pid, os.readlink('/proc/%s/root' % pid))
                    except OSError as e:
                        print(pid, type(e).__name__)
                """, "");
        // (fd 3 is the listing's own)
        assertThat(e.stdout().text()).isEqualTo("/.codeagent-zygote PermissionError\n/sys PermissionError\n"
                + "/.codeagent-zygote/door PermissionError\ndoor PermissionError\nTrue 0000000000000000\n"
                + "[0, 1, 2, 3]\n1 PermissionError\nself /\n");
    }

    /** The zygote's memory, read from the host after a program ran: it never held the program's code, input or output. */
    @Test
    void theZygoteNeverHoldsAProgramsBytes() throws Exception {
        String secret = HostProbe.marker("zygote-secret");
        String reversed = new StringBuilder(secret).reverse().toString();
        Execution e = run("import sys\n# " + secret + "\nprint(sys.stdin.read()[::-1])\n", reversed);
        assertThat(e.stdout().text()).isEqualTo(secret + "\n");
        // the zygote (and the bubblewrap above it, whose arguments name the script too)
        List<Long> zygotes = HostProbe.processesWithArg(LaunchPlan.ZYGOTE_DIR + "/zygote.py");
        assertThat(zygotes).as("the zygote's process").isNotEmpty();
        for (long pid : zygotes) {
            assertThat(contains(pid, secret.getBytes(StandardCharsets.US_ASCII))).as("the code or output in " + pid).isFalse();
            assertThat(contains(pid, reversed.getBytes(StandardCharsets.US_ASCII))).as("the input in " + pid).isFalse();
        }
    }

    /** Whether {@code needle} is in any readable writable mapping of process {@code pid}. */
    private static boolean contains(long pid, byte[] needle) throws IOException {
        List<String> maps = Files.readAllLines(Path.of("/proc/" + pid + "/maps"));
        try (RandomAccessFile mem = new RandomAccessFile("/proc/" + pid + "/mem", "r")) {
            for (String line : maps) {
                String[] f = line.split("\\s+");
                if (!f[1].startsWith("rw")) {
                    continue;
                }
                String[] range = f[0].split("-");
                long from = Long.parseUnsignedLong(range[0], 16);
                long to = Long.parseUnsignedLong(range[1], 16);
                if (to - from > 512L * 1024 * 1024) {
                    continue;
                }
                byte[] b = new byte[(int) (to - from)];
                try {
                    mem.seek(from);
                    mem.readFully(b);
                } catch (IOException unreadable) {
                    continue;
                }
                if (indexOf(b, needle) >= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
