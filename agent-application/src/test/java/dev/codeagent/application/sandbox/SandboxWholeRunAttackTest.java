package dev.codeagent.application.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Attacks on the limits of a whole run (issue 10), each followed by a look at the host: memory held by
 * forked children, SysV shm, memfd, tmpfs and JavaScript buffers is one run's memory; CPU time relayed
 * through children is one run's CPU time; nothing the program writes reaches the host's disk; vsock is
 * refused; the program starts with fds 0-2 only; its exit status and signal are reported as they were; the
 * figures it is reported with cannot be forged by it. A test runs only where the tier claims the guarantee it
 * attacks ({@link IsolationFeature}); a tier's test extends this class and supplies the sandbox.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SandboxWholeRunAttackTest {

    /** The sandbox under test; may return the same instance on every call. */
    protected abstract Sandbox sandbox();

    /** Host directories where the tier keeps per-execution state; searched for the program's writes afterwards. */
    protected List<Path> hostScratchDirs() {
        return List.of();
    }

    /** Limits the attacks run under: 128 MiB for the whole run, 1 s of CPU time. */
    protected ResourceLimits limits() {
        return ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10)).withCpuTime(Duration.ofSeconds(1))
                .withMemoryBytes(128 * ResourceLimits.MIB).withMaxProcesses(32).withMaxFileBytes(ResourceLimits.MIB);
    }

    /** For the memory attacks: CPU time to spare, since a group at its limit spends CPU reclaiming before its OOM kill. */
    private ResourceLimits memoryLimits() {
        return limits().withCpuTime(Duration.ofSeconds(8));
    }

    private Execution run(String python, ResourceLimits limits, String... args) {
        return sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, python), "", List.of(args), limits));
    }

    private void requires(IsolationFeature... features) {
        for (IsolationFeature f : features) {
            assumeTrue(sandbox().isolation().has(f), sandbox().tier() + " does not claim " + f);
        }
    }

    private static String why(Execution e) {
        return SandboxAttackTest.why(e);
    }

    private static void assertNoSurvivors(String marker) {
        assertThat(HostProbe.survivors(marker, Duration.ZERO)).as("processes left alive carrying " + marker).isEmpty();
    }

    /** The host's memory is back: the run's memory was freed with it (no shm or memfd outlives the run). */
    private static void assertNoShmLeft(String marker) throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/dev/shm"))) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.contains(marker)).toList()).isEmpty();
        }
    }

    // ---- memory: the whole run's ----------------------------------------------------------------

    @Test
    void memoryHeldByForkedChildrenTogetherIsTheRunsMemory() throws IOException {
        requires(IsolationFeature.CGROUP_MEMORY);
        String marker = HostProbe.marker("forkmem");
        // six children hold 40 MiB each at once: 240 MiB, every one of them far below the 128 MiB limit
        String code = "import os, time\n"
                + "kids = []\n"
                + "for i in range(6):\n"
                + "    r, w = os.pipe()\n"
                + "    pid = os.fork()\n"
                + "    if pid == 0:\n"
                + "        x = b'x' * (40 * 1024 * 1024)\n"
                + "        os.write(w, b'1')\n"
                + "        time.sleep(30)\n"
                + "        os._exit(0)\n"
                + "    os.read(r, 1)\n"
                + "    kids.append(pid)\n"
                + "print('all held', flush=True)\n"
                + "time.sleep(30)\n";
        Execution e = run(code, memoryLimits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("all held");
        assertNoSurvivors(marker);
    }

    @Test
    void sysvSharedMemoryIsTheRunsMemory() throws IOException {
        requires(IsolationFeature.CGROUP_MEMORY);
        String marker = HostProbe.marker("sysvshm");
        // attach, fill, detach: the segments stay, in no process's address space
        String code = "import ctypes\n"
                + "libc = ctypes.CDLL(None, use_errno=True)\n"
                + "libc.shmat.restype = ctypes.c_void_p\n"
                + "size = 32 * 1024 * 1024\n"
                + "for i in range(16):\n"
                + "    id = libc.shmget(0, ctypes.c_size_t(size), 0o1600)\n"
                + "    assert id >= 0, ctypes.get_errno()\n"
                + "    a = libc.shmat(id, None, 0)\n"
                + "    ctypes.memset(a, 1, size)\n"
                + "    libc.shmdt(ctypes.c_void_p(a))\n"
                + "print('held 512 MiB of shm', flush=True)\n";
        Execution e = run(code, memoryLimits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("held");
        assertNoSurvivors(marker);
    }

    @Test
    void memfdPagesAreTheRunsMemory() throws IOException {
        requires(IsolationFeature.CGROUP_MEMORY);
        String marker = HostProbe.marker("memfd");
        String code = "import os\n"
                + "fds = []\n"
                + "chunk = b'm' * (1024 * 1024)\n"
                + "for i in range(16):\n"
                + "    fd = os.memfd_create('" + "m" + "')\n"
                + "    for j in range(32):\n"
                + "        os.write(fd, chunk)\n"
                + "    fds.append(fd)\n"
                + "print('held 512 MiB of memfd', flush=True)\n";
        Execution e = run(code, memoryLimits().withMaxFileBytes(64 * ResourceLimits.MIB), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("held");
        assertNoSurvivors(marker);
        assertNoShmLeft(marker);
    }

    @Test
    void tmpfsPagesAreTheRunsMemory() throws IOException {
        requires(IsolationFeature.CGROUP_MEMORY, IsolationFeature.TMPFS_ONLY);
        String marker = HostProbe.marker("tmpfsmem");
        // every writable place filled to its cap, then the rest of the limit allocated on top
        String code = "import os, sys\n"
                + "chunk = b't' * (512 * 1024)\n"
                + "total = 0\n"
                + "for d in ('/tmp', '/dev/shm', os.getcwd()):\n"
                + "    i = 0\n"
                + "    try:\n"
                + "        while True:\n"
                + "            with open(os.path.join(d, 'f%d' % i), 'wb') as f:\n"
                + "                f.write(chunk)\n"
                + "            i += 1\n"
                + "            total += len(chunk)\n"
                + "    except OSError:\n"
                + "        pass\n"
                + "print('files', total // (1024 * 1024), 'MiB', flush=True)\n"
                + "x = b'h' * (128 * 1024 * 1024 - total + 16 * 1024 * 1024)\n"
                + "print('held', flush=True)\n";
        Execution e = run(code, memoryLimits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("held");
        assertNoSurvivors(marker);
    }

    @Test
    void javaScriptBuffersOffTheHeapAreTheRunsMemory() {
        requires(IsolationFeature.CGROUP_MEMORY);
        assumeTrue(sandbox().languages().contains(Language.JAVASCRIPT), "no JavaScript in this tier");
        String code = "const held = [];\n"
                + "for (let i = 0; i < 32; i++) held.push(Buffer.alloc(16 * 1024 * 1024, 1));\n"
                + "console.log('held 512 MiB');\n";
        Execution e = sandbox().execute(new ExecutionRequest(new Program(Language.JAVASCRIPT, code), "", List.of(), memoryLimits()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("held");
    }

    // ---- CPU time: the whole run's ----------------------------------------------------------------

    @Test
    void cpuTimeRelayedThroughChildrenIsTheRunsCpuTime() {
        requires(IsolationFeature.CGROUP_CPU);
        String marker = HostProbe.marker("cpurelay");
        // each child spins 0.4 s and exits: none comes near its own RLIMIT_CPU, together they pass 1 s
        String code = "import os, time\n"
                + "for i in range(12):\n"
                + "    pid = os.fork()\n"
                + "    if pid == 0:\n"
                + "        end = time.process_time() + 0.4\n"
                + "        while time.process_time() < end:\n"
                + "            pass\n"
                + "        os._exit(0)\n"
                + "    os.waitpid(pid, 0)\n"
                + "    print('relay', i, flush=True)\n"
                + "print('done', flush=True)\n";
        Execution e = run(code, limits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("done");
        assertThat(e.cpuTime()).as("the run's CPU time, from outside").isNotNull()
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(3));
        assertNoSurvivors(marker);
    }

    // ---- nothing writable is the host's disk ------------------------------------------------------

    @Test
    void writesToEveryWritableMountStayOffTheHostsDisk() throws IOException {
        requires(IsolationFeature.TMPFS_ONLY);
        String marker = HostProbe.marker("rwmount");
        // every mount point the program sees, and its work directory: write a file where it can and say on what
        String code = "import os, sys\n"
                + "name = sys.argv[1]\n"
                + "points = {os.getcwd()}\n"
                + "for line in open('/proc/self/mountinfo'):\n"
                + "    f = line.split()\n"
                + "    points.add(f[4])\n"
                + "for p in sorted(points):\n"
                + "    try:\n"
                + "        with open(os.path.join(p, name), 'w') as f:\n"
                + "            f.write('planted')\n"
                + "    except OSError:\n"
                + "        continue\n"
                + "    fstype = '?'\n"
                + "    for line in open('/proc/self/mountinfo'):\n"
                + "        f = line.split()\n"
                + "        if f[4] == p:\n"
                + "            fstype = f[f.index('-') + 1]\n"
                + "    print('wrote', p, fstype, flush=True)\n";
        Execution e = run(code, limits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        List<String> wrote = e.stdout().text().lines().toList();
        assertThat(wrote).as("it could write somewhere (its work directory at least)").isNotEmpty();
        assertThat(wrote).as("every place it could write is a tmpfs").allMatch(l -> l.endsWith(" tmpfs"));
        List<Path> places = new ArrayList<>(hostScratchDirs());
        places.add(Path.of(System.getProperty("java.io.tmpdir")));
        places.add(Path.of("/tmp"));
        places.add(Path.of("/var/tmp"));
        for (Path root : places) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> s = Files.find(root, 4, (p, a) -> p.getFileName() != null
                    && p.getFileName().toString().equals(marker))) {
                assertThat(s.toList()).as("the program's file on the host under " + root).isEmpty();
            } catch (java.io.UncheckedIOException unreadable) {
                // a directory another user made unreadable while we walked: not ours to look into
            }
        }
    }

    // ---- what the program can reach ---------------------------------------------------------------

    @Test
    void vsockIsRefused() {
        requires(IsolationFeature.SECCOMP);
        String code = "import socket, errno\n"
                + "try:\n"
                + "    s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n"
                + "    s.bind((socket.VMADDR_CID_ANY, 50123))\n"
                + "    s.listen()\n"
                + "    print('listening')\n"
                + "except OSError as e:\n"
                + "    print('refused', errno.errorcode.get(e.errno))\n";
        Execution e = run(code, limits());
        assertThat(e.stdout().text()).as(why(e)).isEqualTo("refused EPERM\n");
    }

    @Test
    void theProgramStartsWithStdinStdoutAndStderrOnly() {
        requires(IsolationFeature.INIT);
        String code = "import os\n"
                + "open_fds = []\n"
                + "for fd in range(3, 1024):\n"
                + "    try:\n"
                + "        os.fstat(fd)\n"
                + "        open_fds.append(fd)\n"
                + "    except OSError:\n"
                + "        pass\n"
                + "print(open_fds)\n";
        Execution e = run(code, limits());
        assertThat(e.stdout().text()).as(why(e)).isEqualTo("[]\n");
    }

    // ---- honest exit facts ------------------------------------------------------------------------

    @Test
    void anExitStatusAbove128IsAnExitStatusNotASignal() {
        requires(IsolationFeature.INIT);
        Execution e137 = run("import os\nos._exit(137)", limits());
        assertThat(e137.exitCode()).as(why(e137)).isEqualTo(137);
        assertThat(e137.signal()).isNull();
        assertThat(e137.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
        Execution e152 = run("import sys\nsys.exit(152)", limits());
        assertThat(e152.exitCode()).as(why(e152)).isEqualTo(152);
        assertThat(e152.signal()).isNull();
        assertThat(e152.outcome()).as("152 is not SIGXCPU").isEqualTo(Outcome.RUNTIME_ERROR);
    }

    @Test
    void aSignalThatTheProgramSendsItselfIsThatSignalNotALimit() {
        requires(IsolationFeature.INIT);
        Execution kill9 = run("import os\nos.kill(os.getpid(), 9)", limits());
        assertThat(kill9.signal()).as(why(kill9)).isEqualTo(9);
        assertThat(kill9.exitCode()).isNull();
        assertThat(kill9.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
        Execution xcpu = run("import os\nos.kill(os.getpid(), 24)", limits());
        assertThat(xcpu.signal()).as(why(xcpu)).isEqualTo(24);
        assertThat(xcpu.outcome()).as("it did not use its CPU time").isEqualTo(Outcome.RUNTIME_ERROR);
    }

    @Test
    void theReportedFiguresCannotBeForgedByTheProgram() {
        requires(IsolationFeature.INIT, IsolationFeature.CGROUP_CPU, IsolationFeature.CGROUP_MEMORY);
        // it uses 0.3 s of CPU and 48 MiB, then writes fake figures everywhere it might reach, a fake supervisor
        // report on stderr, and exits 3
        String code = "import os, sys, time\n"
                + "x = b'x' * (48 * 1024 * 1024)\n"
                + "end = time.process_time() + 0.3\n"
                + "while time.process_time() < end:\n"
                + "    pass\n"
                + "for fd in range(3, 64):\n"
                + "    try:\n"
                + "        os.write(fd, b'0.00 0.00 0.00 1\\n')\n"
                + "    except OSError:\n"
                + "        pass\n"
                + "for p in ('/.rusage', '/work/.rusage', '/tmp/.rusage'):\n"
                + "    try:\n"
                + "        open(p, 'w').write('0.00 0.00 0.00 1\\n')\n"
                + "    except OSError:\n"
                + "        pass\n"
                + "sys.stderr.write('\\0codeagent:00000000000000000000000000000000:{\"exit\": 0, \"signal\": null}\\n')\n"
                + "sys.stderr.flush()\n"
                + "os._exit(3)\n";
        Execution e = run(code, limits().withCpuTime(Duration.ofSeconds(5)));
        assertThat(e.exitCode()).as(why(e)).isEqualTo(3);
        assertThat(e.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.cpuTime()).isNotNull().isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(e.peakMemoryBytes()).isNotNull().isGreaterThanOrEqualTo(48L * ResourceLimits.MIB);
    }
}
