package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.sandbox.HostProbe;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Attacks on the docker tier's own machinery, by a program that knows how it works: the supervisor
 * (bootstrap) that reports the program's end behind a secret marker, the container's init, the pipes,
 * the warm pool, the image. Each attack aims only at what it plants (marker arguments, files in its own
 * container, a loopback listener) and is checked from the host afterwards.
 */
@Tag("docker")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DockerSandboxHardeningIT {

    private static final ResourceLimits LIMITS = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(5))
            .withCpuTime(Duration.ofSeconds(5)).withMemoryBytes(128 * ResourceLimits.MIB).withMaxProcesses(32)
            .withMaxFileBytes(ResourceLimits.MIB);
    private static DockerSandbox sandbox;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        sandbox = DockerTestSupport.sandbox(2, LIMITS);
    }

    @AfterAll
    static void stopAndLeaveNothingBehind() {
        if (sandbox != null) {
            sandbox.close();
            assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
        }
    }

    private static Execution run(String python, String... args) {
        return sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, python), "", List.of(args), LIMITS));
    }

    private static String why(Execution e) {
        return e.outcome() + " (" + e.detail() + "), exit " + e.exitCode() + ", stdout: " + e.stdout().text() + ", stderr: "
                + e.stderr().text();
    }

    private static void assertNoSurvivors(String marker) {
        assertThat(HostProbe.survivors(marker, Duration.ZERO)).as("processes alive after the run carrying " + marker).isEmpty();
    }

    // ---- the supervisor and the container's init ---------------------------------------------

    private static final String PTRACE = """
            import ctypes, os, struct, sys
            libc = ctypes.CDLL(None, use_errno=True)
            libc.ptrace.restype = ctypes.c_long
            libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
            PTRACE_GETREGS, PTRACE_SETREGS, PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 12, 13, 17, 0x4206, 0x4207
            """;

    /**
     * The container's pid 1 is spared by {@code kill(-1, SIGKILL)}. A program that can ptrace it turns
     * it into a process of its own (an {@code execve} injected at a syscall instruction), which then
     * outlives the supervisor's sweep and the report that says nothing runs any more.
     */
    @Test
    void cannotHijackTheContainersInitToOutliveTheRun() {
        String marker = HostProbe.marker("hijack");
        String code = PTRACE + """
                class Regs(ctypes.Structure):
                    _fields_ = [(n, ctypes.c_ulonglong) for n in 'r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi '
                                'orig_rax rip cs eflags rsp ss fs_base gs_base ds es fs gs'.split()]
                if os.uname().machine != 'x86_64':
                    print('not x86_64'); sys.exit(0)
                if libc.ptrace(PTRACE_SEIZE, 1, None, None) != 0:
                    print('seize denied'); sys.exit(0)
                libc.ptrace(PTRACE_INTERRUPT, 1, None, None)
                os.waitpid(1, 0x40000000)
                r = Regs()
                libc.ptrace(PTRACE_GETREGS, 1, None, ctypes.byref(r))
                mem = os.open('/proc/1/mem', os.O_RDWR)
                args = [b'/usr/bin/python3', b'-c', b'import time; time.sleep(30)', sys.argv[1].encode()]
                base = (r.rsp - 8192) & ~15
                strings = base + 8 * (len(args) + 2)
                blob, ptrs = b'', []
                for a in args:
                    ptrs.append(strings + len(blob)); blob += a + b'\\0'
                os.lseek(mem, base, 0)
                os.write(mem, b''.join(struct.pack('<Q', p) for p in ptrs) + struct.pack('<QQ', 0, 0) + blob)
                r.rip -= 2; r.rax = 59; r.orig_rax = 2**64 - 1; r.rdi = ptrs[0]; r.rsi = base; r.rdx = base + 8 * len(args)
                libc.ptrace(PTRACE_SETREGS, 1, None, ctypes.byref(r))
                libc.ptrace(PTRACE_DETACH, 1, None, None)
                import time; time.sleep(0.3)
                print('pid 1 is now', open('/proc/1/cmdline', 'rb').read().split(b'\\0')[0].decode())
                """;
        Execution e = run(code, marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertNoSurvivors(marker);
        assertThat(e.stdout().text()).isIn("seize denied\n", "not x86_64\n");
    }

    /**
     * Everything a same-uid program could use to read the supervisor's memory (and the report's secret
     * in it), steal its pipes, or make the OOM killer pick it: denied for every process the program did
     * not start — and the only such process is the supervisor, as pid 1.
     */
    @Test
    void cannotTraceReadOrSteerAnyProcessItDidNotStart() {
        String code = PTRACE + """
                me = os.getpid()
                others = sorted(int(d) for d in os.listdir('/proc') if d.isdigit() and int(d) != me)
                print('others', others)
                for pid in others:
                    got = []
                    if libc.ptrace(PTRACE_SEIZE, pid, None, None) == 0:
                        got.append('ptrace')
                    for name, flags in (('mem', os.O_RDWR), ('mem', os.O_RDONLY), ('environ', os.O_RDONLY), ('maps', os.O_RDONLY)):
                        try:
                            os.close(os.open('/proc/%d/%s' % (pid, name), flags)); got.append(name)
                        except OSError:
                            pass
                    try:
                        os.listdir('/proc/%d/fd' % pid); got.append('fd')
                    except OSError:
                        pass
                    for fd in (0, 1, 2):
                        try:
                            os.close(os.open('/proc/%d/fd/%d' % (pid, fd), os.O_RDONLY | os.O_NONBLOCK)); got.append('fd%d' % fd)
                        except OSError:
                            pass
                    try:
                        with open('/proc/%d/oom_score_adj' % pid, 'w') as f:
                            f.write('1000')
                        got.append('oom_score_adj')
                    except OSError:
                        pass
                    print(pid, 'reached', got)
                """;
        Execution e = run(code);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("others [1]\n1 reached []\n");
    }

    /**
     * A program that stops and kills every other process in its container: its supervisor must still
     * report how the program ended, so the outcome is the program's own — not a sandbox fault that the
     * caller would retry, nor a time limit.
     */
    @Test
    void stoppingOrKillingTheSupervisorDoesNotTurnTheProgramsEndIntoASandboxFault() {
        String code = """
                import os, signal, time
                me = os.getpid()
                for sig in (signal.SIGSTOP, signal.SIGKILL, signal.SIGTERM, signal.SIGCHLD):
                    for d in os.listdir('/proc'):
                        if d.isdigit() and int(d) != me:
                            try:
                                os.kill(int(d), sig)
                            except OSError:
                                pass
                time.sleep(0.2)
                print('still here', flush=True)
                raise SystemExit(3)
                """;
        Execution e = run(code);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(3);
        assertThat(e.stdout().text()).isEqualTo("still here\n");
    }

    // ---- the report --------------------------------------------------------------------------

    @Test
    void cannotForgeTheReportWithLookalikeMarkers() {
        String code = """
                import os
                fake = b'\\0codeagent:' + b'0' * 32 + b':{"exit":0,"signal":null,"cpu":0,"maxrss":0,"oom":0}\\n'
                os.write(1, b'\\0codeagent:go\\n' + fake)
                os.write(2, b'\\0codeagent:' + b'0' * 32 + b':\\n' + fake)
                # a marker's beginning left hanging at the very end: the real marker must still be found after it
                os.write(1, b'tail\\0codeagent:')
                os.write(2, b'\\0codeag')
                os._exit(5)
                """;
        Execution e = run(code);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(5);
        String fake = "\0codeagent:" + "0".repeat(32) + ":{\"exit\":0,\"signal\":null,\"cpu\":0,\"maxrss\":0,\"oom\":0}\n";
        assertThat(e.stdout().text()).isEqualTo("\0codeagent:go\n" + fake + "tail\0codeagent:");
        assertThat(e.stderr().text()).isEqualTo("\0codeagent:" + "0".repeat(32) + ":\n" + fake + "\0codeag");
    }

    /**
     * A detached process that opens the container's stdout and stderr pipes for reading and lies in
     * wait for the real report, to copy its secret into a forged one: it must be dead before the
     * report is written.
     */
    @Test
    void aProcessLyingInWaitOnThePipesNeverSeesTheReport() {
        String marker = HostProbe.marker("lurker");
        String code = """
                import os, select, sys, time
                if os.fork() == 0:
                    os.setsid()
                    r1 = os.open('/proc/self/fd/1', os.O_RDONLY)
                    r2 = os.open('/proc/self/fd/2', os.O_RDONLY)
                    while True:
                        for fd in select.select([r1, r2], [], [])[0]:
                            data = os.read(fd, 65536)
                            i = data.find(b'\\0codeagent:')
                            if i >= 0 and len(data) >= i + 44:
                                nonce = data[i + 11:i + 43]
                                os.write(1, b'\\0codeagent:' + nonce + b':{"exit":0,"signal":null,"cpu":0,"maxrss":0,"oom":0}\\n')
                                os.write(2, b'\\0codeagent:' + nonce + b':\\n')
                                os._exit(0)
                time.sleep(0.3)
                os._exit(4)
                """;
        Execution e = run(code, marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.RUNTIME_ERROR);
        assertThat(e.exitCode()).isEqualTo(4);
        assertNoSurvivors(marker);
    }

    // ---- limits ------------------------------------------------------------------------------

    /**
     * The scratch mounts together hold more than the memory limit, and their pages are charged to the
     * container's memory: filling them all (with its OOM score lowered, so that the supervisor is the
     * larger target) ends as a memory limit, not as a sandbox fault.
     */
    @Test
    void fillingEveryScratchMountPastTheMemoryLimitIsAMemoryLimit() {
        String marker = HostProbe.marker("tmpfsfill");
        String code = """
                import os
                try:
                    with open('/proc/self/oom_score_adj', 'w') as f:
                        f.write('0')
                except OSError:
                    pass
                chunk = b'x' * (1 << 20)
                full, n = set(), 0
                while len(full) < 3:
                    for d in ('/work', '/tmp', '/dev/shm'):
                        if d not in full:
                            try:
                                with open('%s/f%d' % (d, n), 'wb') as f:
                                    f.write(chunk)
                            except OSError:
                                full.add(d)
                            n += 1
                print('wrote', n, 'MiB and was not stopped')
                """;
        Execution e = run(code, marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertNoSurvivors(marker);
    }

    // ---- what the container offers --------------------------------------------------------------

    /**
     * The only places the program can write are the size-capped scratch mounts; no setuid or setgid file
     * exists to gain privileges through, no socket (the engine's above all) is reachable in the file
     * system, and no writable mount reaches the host.
     */
    @Test
    void writesOnlyToTheScratchMountsAndFindsNoSetuidFileNoSocketNoHostMount() {
        String code = """
                import os, stat
                scratch = ('/work', '/tmp', '/dev/shm', '/dev/mqueue')
                writable, setid, sockets, devices = [], [], [], []
                if os.access('/', os.W_OK):
                    writable.append('/')
                for root, dirs, files in os.walk('/'):
                    dirs[:] = [d for d in dirs if os.path.join(root, d) not in ('/proc', '/sys')]
                    for name in dirs + files:
                        p = os.path.join(root, name)
                        try:
                            st = os.lstat(p)
                        except OSError:
                            continue
                        if stat.S_ISLNK(st.st_mode):
                            continue
                        if st.st_mode & (stat.S_ISUID | stat.S_ISGID) and not stat.S_ISDIR(st.st_mode):
                            setid.append(p)
                        if stat.S_ISSOCK(st.st_mode):
                            sockets.append(p)
                        if not os.access(p, os.W_OK) or p in scratch or p.startswith(tuple(s + '/' for s in scratch)):
                            continue
                        (devices if stat.S_ISCHR(st.st_mode) else writable).append(p)
                print('writable', sorted(writable))
                print('setid', sorted(setid))
                print('sockets', sorted(sockets))
                print('devices', sorted(devices))
                for line in open('/proc/self/mountinfo'):
                    f = line.split()
                    print('mount', f[4], f[5].split(',')[0], f[3], line.split(' - ')[1].split()[0])
                """;
        Execution e = run(code);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        List<String> lines = e.stdout().text().lines().toList();
        assertThat(lines).contains("writable []", "setid []", "sockets []");
        String devices = lines.stream().filter(l -> l.startsWith("devices ")).findFirst().orElseThrow();
        Set<String> harmless = Set.of("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
                "/dev/pts/ptmx");
        assertThat(devices.substring("devices ".length()).replaceAll("[\\[\\]' ]", "").split(","))
                .allMatch(d -> d.isEmpty() || harmless.contains(d));
        Set<String> mayBeWritable = Set.of("/proc", "/dev", "/dev/pts", "/dev/mqueue", "/dev/shm", "/work", "/tmp", "/sys/fs/cgroup");
        List<String> mounts = lines.stream().filter(l -> l.startsWith("mount ")).toList();
        assertThat(mounts).isNotEmpty();
        for (String m : mounts) {
            String[] f = m.split(" ");
            assertThat(m).as("no engine socket in the container").doesNotContain("docker.sock");
            if (f[3].equals("/null")) {
                // a kernel file masked by the engine with a bind of /dev/null
                continue;
            }
            if (f[2].equals("rw")) {
                assertThat(mayBeWritable).as("writable mount " + m).contains(f[1]);
            }
            if (!f[4].equals("tmpfs") && !f[4].equals("proc") && !f[4].equals("sysfs") && !f[4].equals("cgroup")
                    && !f[4].equals("devpts") && !f[4].equals("mqueue") && !f[4].equals("overlay")) {
                // a bind mount from the host's own file system (the container's hostname file)
                assertThat(f[2]).as("host bind mount " + m).isEqualTo("ro");
            }
        }
    }

    @Test
    void cannotGainPrivilegesNamespacesOrKernelInterfaces() {
        String code = """
                import ctypes, os
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall.restype = ctypes.c_long
                def attempt(name, f):
                    try:
                        r = f()
                    except OSError:
                        r = -1
                    print(name, 'ALLOWED' if r in (None, 0) or (isinstance(r, int) and r > 0) else 'denied')
                attempt('setuid', lambda: os.setuid(0))
                attempt('setgid', lambda: os.setgid(0))
                attempt('setgroups', lambda: os.setgroups([0]))
                for name, flag in (('userns', 0x10000000), ('mountns', 0x20000), ('netns', 0x40000000), ('pidns', 0x20000000)):
                    attempt(name, lambda flag=flag: libc.unshare(flag))
                attempt('mount', lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None))
                attempt('remount-root', lambda: libc.mount(None, b'/', None, 0x20 | 0x1000, None))
                attempt('chroot', lambda: os.chroot('/tmp'))
                attempt('mknod', lambda: os.mknod('/tmp/mem', 0o600 | 0o020000, os.makedev(1, 1)))
                attempt('chown', lambda: os.chown('/work/main.py', 0, 0))
                attempt('add_key', lambda: libc.syscall(248, b'user', b'codeagent', b'v', 1, ctypes.c_long(-2)))
                attempt('bpf', lambda: libc.syscall(321, 0, None, 0))
                attempt('perf_event_open', lambda: libc.syscall(298, None, 0, -1, -1, 0))
                attempt('kexec_load', lambda: libc.syscall(246, 0, 0, None, 0))
                attempt('reboot', lambda: libc.syscall(169, 0xfee1dead, 672274793, 0x4321fedc, None))
                """;
        Execution e = run(code);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).doesNotContain("ALLOWED").contains("userns denied", "mount denied", "setuid denied");
    }

    /**
     * Abstract unix sockets belong to a network namespace, not to the file system: only {@code
     * --network none} (a namespace of its own) keeps the program from the host's, e.g. the container
     * runtime's. A host process listens on one named after a marker.
     */
    @Test
    void cannotReachAnAbstractUnixSocketOfTheHost() throws Exception {
        Path python = Path.of("/usr/bin/python3.11");
        if (!Files.isExecutable(python)) {
            python = Path.of("/usr/bin/python3");
        }
        Assumptions.assumeTrue(Files.isExecutable(python), "a host python to listen with");
        String name = HostProbe.marker("abstract");
        Process listener = new ProcessBuilder(python.toString(), "-c", String.join("\n",
                "import socket, sys",
                "s = socket.socket(socket.AF_UNIX)",
                "s.bind('\\0' + sys.argv[1]); s.listen(5); s.settimeout(20)",
                "print('listening', flush=True)",
                "try:",
                "    s.accept(); print('accepted', flush=True)",
                "except OSError:",
                "    pass"), name).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("listening");
            Execution e = run("""
                    import socket, sys
                    s = socket.socket(socket.AF_UNIX)
                    try:
                        s.connect('\\0' + sys.argv[1]); print('connected')
                    except OSError as e:
                        print('refused')
                    """, name);
            assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).isEqualTo("refused\n");
            // an accepted connection makes the listener say so and exit
            Thread.sleep(200);
            assertThat(listener.isAlive()).as("the listener is still waiting").isTrue();
            assertThat(out.ready()).as("the listener has something to say").isFalse();
        } finally {
            listener.destroyForcibly();
        }
    }

    // ---- the warm pool -------------------------------------------------------------------------

    /**
     * A run in a pooled container plants what could pass to a later run — a detached process, a file
     * in /dev/shm, a System V shared memory segment — and the next pooled run finds none of it.
     */
    @Test
    void aPooledRunFindsNothingOfTheRunBefore() {
        String marker = HostProbe.marker("pooled");
        assertThat(sandbox.awaitSettled(Duration.ofSeconds(30))).isTrue();
        Execution plant = run("""
                import ctypes, os, socket, subprocess, sys
                subprocess.Popen(['/bin/sh', '-c', 'sleep 30', sys.argv[1]], start_new_session=True,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                open('/dev/shm/' + sys.argv[1], 'w').write('planted')
                libc = ctypes.CDLL(None, use_errno=True)
                print(socket.gethostname(), 'shm', libc.shmget(0x0c0de, 4096, 0o1666) >= 0)
                """, marker);
        assertThat(plant.outcome()).as(why(plant)).isEqualTo(Outcome.OK);
        assertThat(plant.stdout().text()).endsWith(" shm True\n");
        assertNoSurvivors(marker);
        assertThat(sandbox.awaitSettled(Duration.ofSeconds(30))).isTrue();
        Execution look = run("""
                import os, socket, sys
                me = os.getpid()
                seen = [open('/proc/%s/cmdline' % d, 'rb').read() for d in os.listdir('/proc') if d.isdigit() and int(d) not in (1, me)]
                print(socket.gethostname(), 'procs', len(seen), 'shm', os.listdir('/dev/shm'),
                      'sysv', len(open('/proc/sysvipc/shm').read().splitlines()) - 1)
                """);
        assertThat(look.outcome()).as(why(look)).isEqualTo(Outcome.OK);
        String[] host = {plant.stdout().text().split(" ")[0], look.stdout().text().split(" ")[0]};
        assertThat(host[1]).as("another container").isNotEqualTo(host[0]);
        assertThat(look.stdout().text()).isEqualTo(host[1] + " procs 0 shm [] sysv 0\n");
    }

    // ---- a host that vanished ---------------------------------------------------------------------

    private static DockerContainers.Spec strayShape(String owner) {
        return DockerContainers.Spec.of(DockerTestSupport.IMAGE, LIMITS, 1.0, ByteSize.ofMiB(8).bytes(),
                Map.of(DockerContainers.LABEL_SANDBOX, "true", DockerContainers.LABEL_OWNER, owner,
                        DockerContainers.LABEL_PROCESS, StrayContainers.processTag()));
    }

    private static boolean awaitStopped(DockerEngine engine, String id, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (!Boolean.TRUE.equals(engine.inspect(id).getState().getRunning())) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    /**
     * The JVM that started a run dies (here: it just lets go of the attach stream): nobody will kill
     * the container at the wall-clock limit, so its supervisor does, shortly after.
     */
    @Test
    void aRunWhoseHostVanishedIsEndedByItsSupervisor() throws Exception {
        String marker = HostProbe.marker("orphaned-run");
        String owner = "test-backstop-" + UUID.randomUUID();
        try (DockerEngine engine = DockerTestSupport.engine()) {
            String id = engine.create(strayShape(owner));
            try {
                engine.start(id);
                String nonce = Bootstrap.newNonce();
                ExecutionRequest request = new ExecutionRequest(new Program(Language.PYTHON,
                        "import time\nprint('up', flush=True)\ntime.sleep(60)"), "", List.of(marker), LIMITS);
                byte[] payload = Bootstrap.payload(request, ByteSize.ofMiB(8).bytes(), nonce, 1);
                AttachSession session = new AttachSession(4096, nonce);
                engine.attach(id, payload, session);
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (!session.started() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                // the ack comes just before the program's exec: wait until the program itself shows
                while (HostProbe.processesWithArg(marker).isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(HostProbe.processesWithArg(marker)).as("the program runs").isNotEmpty();
                session.close();
                assertThat(awaitStopped(engine, id, Duration.ofSeconds(10))).as("the container ended itself").isTrue();
                assertNoSurvivors(marker);
            } finally {
                engine.remove(id);
            }
        }
        assertThat(DockerTestSupport.containersOf(owner)).isEmpty();
    }

    /**
     * The pool never hands out a container whose bootstrap is about to end itself for idleness; such
     * containers are retired and replaced.
     */
    @Test
    void thePoolRetiresContainersBeforeTheirIdleTimeRunsOut() throws Exception {
        String owner = "test-retire-" + UUID.randomUUID();
        try (DockerEngine engine = DockerTestSupport.engine()) {
            DockerContainers.Spec spec = strayShape(owner).withIdle(Duration.ofSeconds(3));
            List<String> before;
            try (ContainerKeeper keeper = new ContainerKeeper(engine, spec, 1, owner)) {
                assertThat(keeper.awaitSettled(Duration.ofSeconds(30))).isTrue();
                before = DockerTestSupport.containersOf(owner);
                assertThat(before).hasSize(1);
                Thread.sleep(2_500);
                String taken = keeper.takeWarm(spec.key());
                assertThat(taken).as("a container near its idle end").isNotEqualTo(before.get(0));
                if (taken != null) {
                    keeper.release(taken, true);
                }
            }
        }
        assertThat(DockerTestSupport.containersOf(owner)).isEmpty();
    }

    /** A pooled container that nobody claims (its maker died) ends itself after the idle time. */
    @Test
    void anUnclaimedPooledContainerEndsItself() throws Exception {
        String owner = "test-idle-" + UUID.randomUUID();
        try (DockerEngine engine = DockerTestSupport.engine()) {
            String id = engine.create(strayShape(owner).withIdle(Duration.ofSeconds(1)));
            try {
                engine.start(id);
                assertThat(awaitStopped(engine, id, Duration.ofSeconds(10))).as("the idle container ended itself").isTrue();
            } finally {
                engine.remove(id);
            }
        }
        assertThat(DockerTestSupport.containersOf(owner)).isEmpty();
    }
}
