package dev.codeagent.application.sandbox;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One hostile program per row of the threat table (ARCHITECTURE.md), each followed by a look at the
 * host: no survivor process, nothing written outside the sandbox, no connection received, the JVM and
 * its decoys alive. The programs aim only at markers the tests plant. A tier's test extends this class
 * and supplies the sandbox.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SandboxAttackTest {

    /** The sandbox under test; may return the same instance on every call. */
    protected abstract Sandbox sandbox();

    /** Outcome, detail and stderr of an execution, for assertion messages. */
    protected static String why(Execution e) {
        return e.outcome() + " (" + e.detail() + "), exit " + e.exitCode() + ", signal " + e.signal() + ", stderr: "
                + e.stderr().text();
    }

    /** Limits the attacks run under: defaults with short times so that a contained attack ends quickly. */
    protected ResourceLimits limits() {
        return ResourceLimits.defaults().withWallTime(Duration.ofSeconds(5)).withCpuTime(Duration.ofSeconds(5))
                .withMemoryBytes(128 * ResourceLimits.MIB).withMaxProcesses(32).withMaxFileBytes(ResourceLimits.MIB);
    }

    /** Time a tier may take beyond a wall limit to kill and clean up a run. */
    protected Duration slack() {
        return Duration.ofSeconds(3);
    }

    /** How long processes may linger after {@code execute} returns; the contract says none, so zero. */
    protected Duration survivorGrace() {
        return Duration.ZERO;
    }

    /**
     * Host directories where the tier keeps per-execution state (work directories); after every run
     * they must hold nothing more than before it. None by default.
     */
    protected List<Path> hostScratchDirs() {
        return List.of();
    }

    @TempDir
    Path testDir;

    private Map<Path, Set<Path>> scratchBefore;
    private final List<Path> planted = new ArrayList<>();

    @BeforeEach
    void recordScratchDirs() throws IOException {
        scratchBefore = new java.util.HashMap<>();
        for (Path dir : hostScratchDirs()) {
            scratchBefore.put(dir, list(dir));
        }
    }

    @AfterEach
    void scratchDirsHoldNothingNew() throws IOException {
        try {
            for (Path dir : hostScratchDirs()) {
                assertThat(list(dir)).as("left behind in " + dir).isSubsetOf(scratchBefore.get(dir));
            }
        } finally {
            for (Path p : planted) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static Set<Path> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.collect(Collectors.toCollection(HashSet::new));
        }
    }

    private Execution run(String python, ResourceLimits limits, String... args) {
        return sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON, python), "", List.of(args), limits));
    }

    private static String py(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private void assertNoSurvivors(String marker) {
        assertThat(survivors(marker)).as("processes left alive carrying " + marker).isEmpty();
    }

    /**
     * What is left of the program run with {@code marker} among its arguments once {@link #survivorGrace()} has
     * passed, as the host's /proc shows it; a tier whose programs the host cannot see (gVisor) asks its own kernel.
     */
    protected java.util.List<?> survivors(String marker) {
        return HostProbe.survivors(marker, survivorGrace());
    }

    // ---- runaway CPU / sleep ------------------------------------------------------------------

    /**
     * Guarantees this tier is known not to hold yet, by test method name, with why: such a test is reported
     * skipped with that reason instead of passing or hiding. Every entry is a gap the docs name.
     */
    protected java.util.Map<String, String> knownGaps() {
        return java.util.Map.of();
    }

    private void skipIfKnownGap(String test) {
        String why = knownGaps().get(test);
        org.junit.jupiter.api.Assumptions.assumeTrue(why == null, () -> "a known gap of this tier: " + why);
    }

    @Test
    void killsARunawayLoopAtTheWallLimit() {
        String marker = HostProbe.marker("spin");
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(1));
        long start = System.nanoTime();
        Execution e = run("while True:\n    pass", l, marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1).plus(slack()));
        assertNoSurvivors(marker);
    }

    @Test
    void killsOrphanedGrandchildrenThatEscapedWithSetsidAndDoubleFork() {
        String marker = HostProbe.marker("orphan");
        // the grandchild keeps stdout open: a sandbox that waits for end-of-file would hang here
        String code = "import os, sys, time\n"
                + "if os.fork() == 0:\n"
                + "    os.setsid()\n"
                + "    if os.fork() == 0:\n"
                + "        os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 60; echo late', " + py(marker) + "])\n"
                + "    os._exit(0)\n"
                + "time.sleep(0.3)\n"
                + "print('parent waiting', flush=True)\n"
                + "time.sleep(60)\n";
        ResourceLimits l = limits().withWallTime(Duration.ofMillis(1500));
        long start = System.nanoTime();
        Execution e = run(code, l, marker);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500).plus(slack()));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(e.stdout().text()).isEqualTo("parent waiting\n");
        assertNoSurvivors(marker);
    }

    @Test
    void killsDetachedDescendantsWhenTheProgramExitsNormally() {
        String marker = HostProbe.marker("survivor");
        String code = "import os, subprocess\n"
                + "subprocess.Popen(['/bin/sh', '-c', 'sleep 60', " + py(marker) + "], start_new_session=True,\n"
                + "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)\n"
                + "if os.fork() == 0:\n"
                + "    os.setsid()\n"
                + "    if os.fork() == 0:\n"
                + "        os.execv('/bin/sh', ['/bin/sh', '-c', 'sleep 60', " + py(marker) + "])\n"
                + "    os._exit(0)\n"
                + "import time\ntime.sleep(0.3)\n"
                + "print('done')\n";
        long start = System.nanoTime();
        Execution e = run(code, limits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("done\n");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("did not wait for the survivors")
                .isLessThan(Duration.ofSeconds(4));
        assertNoSurvivors(marker);
    }

    // ---- memory bomb --------------------------------------------------------------------------

    @Test
    void containsAMemoryBombAsMemoryLimit() {
        String marker = HostProbe.marker("membomb");
        Execution e = run("x = []\nwhile True:\n    x.append(' ' * (16 * 1024 * 1024))", limits(), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertNoSurvivors(marker);
    }

    @Test
    void containsOneHugeAllocationAsMemoryLimit() {
        Execution e = run("x = bytearray(4 * 1024 * 1024 * 1024)\nprint('allocated')", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).isEmpty();
    }

    // ---- fork / thread bomb -------------------------------------------------------------------

    @Test
    void containsAForkBomb() throws Exception {
        skipIfKnownGap("containsAForkBomb");
        String marker = HostProbe.marker("forkbomb");
        String code = "import os, time\n"
                + "n = 0\n"
                + "while True:\n"
                + "    try:\n"
                + "        if os.fork() == 0:\n"
                + "            time.sleep(60)\n"
                + "            os._exit(0)\n"
                + "        n += 1\n"
                + "    except OSError:\n"
                + "        print('refused after', n, flush=True)\n"
                + "        time.sleep(60)\n";
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(3));
        long start = System.nanoTime();
        Execution e = run(code, l, marker);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3).plus(slack()));
        assertThat(e.outcome()).as(why(e)).isIn(Outcome.TIME_LIMIT, Outcome.RUNTIME_ERROR, Outcome.MEMORY_LIMIT);
        assertThat(e.stdout().text()).as("the fork limit stopped it").startsWith("refused after");
        int forked = Integer.parseInt(e.stdout().text().trim().split("\\s+")[2]);
        assertThat(forked).isLessThan(l.maxProcesses());
        assertNoSurvivors(marker);
        assertHostCanStillStartProcesses();
    }

    @Test
    void containsAThreadBomb() throws Exception {
        String marker = HostProbe.marker("threadbomb");
        String code = "import threading, time\n"
                + "n = 0\n"
                + "try:\n"
                + "    while True:\n"
                + "        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
                + "        n += 1\n"
                + "except Exception as e:\n"
                + "    print('refused after', n, type(e).__name__, flush=True)\n"
                + "    raise SystemExit(7)\n";
        ResourceLimits l = limits().withWallTime(Duration.ofSeconds(3));
        Execution e = run(code, l, marker);
        assertThat(e.stdout().text()).as(e.stderr().text()).startsWith("refused after");
        int started = Integer.parseInt(e.stdout().text().trim().split("\\s+")[2]);
        assertThat(started).isLessThan(l.maxProcesses());
        assertThat(e.outcome()).as(why(e)).isIn(Outcome.RUNTIME_ERROR, Outcome.MEMORY_LIMIT);
        assertNoSurvivors(marker);
        assertHostCanStillStartProcesses();
    }

    private static void assertHostCanStillStartProcesses() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("/bin/true").start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        Thread t = new Thread(() -> { });
        t.start();
        t.join();
    }

    // ---- disk fill ----------------------------------------------------------------------------

    @Test
    void stopsADiskFillAtTheFileSizeLimitAndLeavesNothingBehind() throws IOException {
        String marker = HostProbe.marker("diskfill");
        Path hostTmpTwin = Path.of("/tmp", marker);
        String code = "import os\n"
                + "open('/tmp/' + " + py(marker) + ", 'w').write('planted')\n"
                + "os.makedirs('deep/er', exist_ok=True)\n"
                + "with open('deep/er/fill.bin', 'wb') as f:\n"
                + "    for _ in range(64):\n"
                + "        f.write(b'\\0' * (1024 * 1024))\n"
                + "        f.flush()\n"
                + "print('wrote everything')\n";
        Execution e = run(code, limits().withMaxFileBytes(2 * ResourceLimits.MIB), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(e.stdout().text()).doesNotContain("wrote everything");
        assertThat(hostTmpTwin).as("the sandbox's /tmp is its own").doesNotExist();
        assertNoSurvivors(marker);
    }

    // ---- output flood -------------------------------------------------------------------------

    @Test
    void boundsAnOutputFlood() {
        String marker = HostProbe.marker("flood");
        ResourceLimits l = limits().withMaxOutputBytes(64 * 1024).withWallTime(Duration.ofSeconds(5));
        long start = System.nanoTime();
        Execution e = run("import os, sys\nif os.fork() == 0:\n    while True:\n        sys.stderr.write('e' * 65536)\n"
                + "while True:\n    sys.stdout.write('o' * 65536)", l, marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OUTPUT_LIMIT);
        assertThat(e.stdout().text().length()).isLessThanOrEqualTo(64 * 1024);
        assertThat(e.stderr().text().length()).isLessThanOrEqualTo(64 * 1024);
        assertThat(e.stdout().truncated() || e.stderr().truncated()).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("stopped at the cap, not at the wall limit")
                .isLessThan(Duration.ofSeconds(4));
        assertNoSurvivors(marker);
    }

    // ---- network ------------------------------------------------------------------------------

    @Test
    void cannotReachAListenerOnLoopback() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger accepted = new AtomicInteger();
            Thread acceptor = new Thread(() -> {
                try {
                    server.setSoTimeout(100);
                    while (!Thread.currentThread().isInterrupted()) {
                        try (Socket s = server.accept()) {
                            accepted.incrementAndGet();
                        } catch (SocketTimeoutException again) {
                            // poll the interrupt flag
                        }
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.start();
            String code = "import socket\n"
                    + "for host in ('127.0.0.1', 'localhost', '::1', '10.0.2.2', '172.17.0.1'):\n"
                    + "    try:\n"
                    + "        socket.create_connection((host, " + server.getLocalPort() + "), timeout=1).close()\n"
                    + "        print('connected', host)\n"
                    + "    except OSError as e:\n"
                    + "        print('refused', host)\n";
            Execution e = run(code, limits().withWallTime(Duration.ofSeconds(10)));
            acceptor.interrupt();
            acceptor.join(2000);
            assertThat(e.stdout().text()).as(e.stderr().text()).doesNotContain("connected").contains("refused 127.0.0.1");
            assertThat(accepted.get()).as("connections the listener received").isZero();
            // the run's report claims what was just shown, in the name every tier uses for it
            assertThat(e.isolation().has(IsolationFeature.NETWORK_NONE)).as(e.isolation().sortedFeatures().toString()).isTrue();
        }
    }

    @Test
    void seesNoNetworkInterfaceButLoopbackAndCannotResolveNames() {
        String code = "import socket\n"
                + "print(sorted(n for _, n in socket.if_nameindex() if n != 'lo'))\n"
                + "try:\n"
                + "    socket.getaddrinfo('example.com', 443)\n"
                + "    print('resolved')\n"
                + "except OSError:\n"
                + "    print('no dns')\n"
                + "try:\n"
                + "    socket.create_connection(('1.1.1.1', 53), timeout=1).close()\n"
                + "    print('outbound')\n"
                + "except OSError:\n"
                + "    print('no route')\n";
        Execution e = run(code, limits().withWallTime(Duration.ofSeconds(15)));
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("[]\nno dns\nno route\n");
    }

    // ---- host secrets, host files -------------------------------------------------------------

    @Test
    void cannotReadMarkerFilesOutsideItsWorkDirectory() throws IOException {
        String secret = HostProbe.marker("secret");
        List<Path> files = new ArrayList<>();
        files.add(plant(testDir.resolve("secret-0600.txt"), secret, "rw-------"));
        files.add(plant(testDir.resolve("secret-0644.txt"), secret, "rw-r--r--"));
        files.add(plant(Path.of(System.getProperty("java.io.tmpdir"), secret + ".txt"), secret, "rw-r--r--"));
        Path home = Path.of(System.getProperty("user.home"));
        if (Files.isWritable(home)) {
            files.add(plant(home.resolve("." + secret + ".txt"), secret, "rw-r--r--"));
        }
        StringBuilder code = new StringBuilder("paths = [\n");
        for (Path f : files) {
            code.append("    ").append(py(f.toAbsolutePath().toString())).append(",\n");
        }
        code.append("]\n")
                .append("for p in paths:\n")
                .append("    try:\n")
                .append("        print(open(p).read())\n")
                .append("    except OSError as e:\n")
                .append("        print('denied', type(e).__name__)\n");
        Execution e = run(code.toString(), limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).doesNotContain(secret);
        assertThat(e.stdout().text().lines()).hasSize(files.size()).allMatch(s -> s.startsWith("denied"));
        for (Path f : files) {
            assertThat(Files.readString(f)).isEqualTo(secret);
        }
    }

    @Test
    void cannotSeeTheHostEnvironment() {
        Execution e = run("import os, json\nprint(json.dumps(dict(os.environ)))\n"
                + "print(open('/proc/self/environ', 'rb').read().decode('utf-8', 'replace'))", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        String seen = e.stdout().text();
        String planted = System.getenv("CODEAGENT_TEST_SECRET");
        if (planted != null) {
            assertThat(seen).doesNotContain(planted);
        }
        Set<String> generic = Set.of("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "PWD", "SHLVL", "_",
                "HOSTNAME", "USER", "LOGNAME", "SHELL", "OLDPWD", "TMPDIR");
        for (Map.Entry<String, String> v : System.getenv().entrySet()) {
            if (generic.contains(v.getKey()) || v.getValue().length() < 6) {
                continue;
            }
            assertThat(seen).as("the JVM's " + v.getKey() + " leaked").doesNotContain(v.getKey() + "\": \"" + v.getValue());
            assertThat(seen).as("the JVM's " + v.getKey() + " leaked").doesNotContain(v.getKey() + "=" + v.getValue());
        }
    }

    @Test
    void cannotSeeOrSignalHostProcesses() throws Exception {
        String marker = HostProbe.marker("decoy");
        Process decoy = HostProbe.startDecoy(marker, Duration.ofSeconds(60));
        try {
            long jvm = ProcessHandle.current().pid();
            String code = "import os, signal\n"
                    + "seen = []\n"
                    + "for pid in os.listdir('/proc'):\n"
                    + "    if pid.isdigit():\n"
                    + "        try:\n"
                    + "            cmd = open('/proc/%s/cmdline' % pid, 'rb').read()\n"
                    + "        except OSError:\n"
                    + "            continue\n"
                    + "        if " + py(marker) + ".encode() in cmd or b'java' in cmd:\n"
                    + "            seen.append(pid)\n"
                    + "print('seen', seen)\n"
                    + "try:\n"
                    + "    os.kill(" + decoy.pid() + ", signal.SIGKILL)\n"
                    + "    print('decoy signalled')\n"
                    + "except OSError as e:\n"
                    + "    print('decoy', type(e).__name__)\n"
                    + "if " + jvm + " != os.getpid():\n"
                    + "    try:\n"
                    + "        os.kill(" + jvm + ", signal.SIGKILL)\n"
                    + "    except OSError:\n"
                    + "        pass\n"
                    + "print('end')\n";
            Execution e = run(code, limits());
            assertThat(e.stdout().text()).as(e.stderr().text()).startsWith("seen []\n").doesNotContain("decoy signalled")
                    .endsWith("end\n");
            assertThat(decoy.isAlive()).as("the decoy survived").isTrue();
            assertThat(ProcessHandle.current().isAlive()).isTrue();
        } finally {
            decoy.destroyForcibly();
            decoy.waitFor(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void cannotWriteOutsideItsWorkDirectoryAndTmp() throws IOException {
        Path openDir = Files.createTempDirectory("codeagent-attack-");
        try {
            Files.setPosixFilePermissions(openDir, PosixFilePermissions.fromString("rwxrwxrwx"));
            String name = HostProbe.marker("write");
            List<String> targets = List.of(openDir.resolve(name).toString(), testDir.resolve(name).toString(),
                    "/" + name, "/usr/" + name, "/etc/" + name, "/var/tmp/" + name, "/dev/shm/" + name,
                    "../" + name);
            StringBuilder code = new StringBuilder("for p in [");
            for (String t : targets) {
                code.append(py(t)).append(", ");
            }
            code.append("]:\n    try:\n        open(p, 'w').write('x')\n        print('wrote', p)\n"
                    + "    except OSError as e:\n        print('denied', type(e).__name__)\n");
            Execution e = run(code.toString(), limits());
            assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text().lines()).hasSize(targets.size());
            try (Stream<Path> s = Files.list(openDir)) {
                assertThat(s).as("written into a world-writable host directory").isEmpty();
            }
            for (String t : List.of("/" + name, "/usr/" + name, "/etc/" + name, "/var/tmp/" + name, "/dev/shm/" + name,
                    testDir.resolve(name).toString())) {
                assertThat(Path.of(t)).as("host file written").doesNotExist();
            }
        } finally {
            try (Stream<Path> s = Files.list(openDir)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(openDir);
        }
    }

    @Test
    void cleanupDoesNotFollowLinksThePlantedInItsWorkDirectory() throws IOException {
        Path targetDir = Files.createDirectories(testDir.resolve("precious"));
        Path targetFile = plant(targetDir.resolve("marker.txt"), "precious", "rw-r--r--");
        String code = "import os\n"
                + "os.symlink(" + py(targetFile.toString()) + ", 'link-to-file')\n"
                + "os.symlink(" + py(targetDir.toString()) + ", 'link-to-dir')\n"
                + "os.makedirs('sub')\n"
                + "os.symlink(" + py(targetDir.toString()) + ", 'sub/nested-link')\n"
                + "os.symlink('/', 'root-link')\n"
                + "os.chmod('sub', 0o000)\n"
                + "print('planted')\n";
        Execution e = run(code, limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(targetFile).exists().hasContent("precious");
        assertThat(targetDir).isDirectory();
    }

    private Path plant(Path file, String content, String perms) throws IOException {
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(perms));
        planted.add(file);
        return file;
    }

    // ---- limits over the whole run (issue 11) ---------------------------------------------------

    @Test
    void holdsTheCpuLimitOverEveryProcessOfTheRun() {
        // each child spins half a second, under any per-process CPU limit; only a sum over the run stops this
        org.junit.jupiter.api.Assumptions.assumeTrue(sandbox().isolation().has(IsolationFeature.CGROUP_CPU),
                "the tier does not claim cgroup-cpu");
        String marker = HostProbe.marker("spinners");
        // far above what the spinners need on a loaded machine, so that only the CPU limit can end the run
        Duration wallLimit = Duration.ofSeconds(60);
        Execution e = run("import os, time\n"
                + "while True:\n"
                + "    if os.fork() == 0:\n"
                + "        t = time.process_time()\n"
                + "        while time.process_time() - t < 0.5: pass\n"
                + "        os._exit(0)\n"
                + "    os.wait()\n"
                + "    print('spun', flush=True)\n",
                limits().withCpuTime(Duration.ofSeconds(1)).withWallTime(wallLimit), marker);
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.TIME_LIMIT);
        assertThat(e.detail()).as(why(e)).contains("CPU");
        assertThat(e.wallTime()).as("ended by the CPU limit, not the wall clock").isLessThan(wallLimit.dividedBy(2));
        assertThat(e.cpuTime()).as("the run's CPU time is the whole group's").isNotNull()
                .isGreaterThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(e.stdout().text()).as("some spinners ran before the limit").contains("spun");
        assertNoSurvivors(marker);
    }

    // ---- the tier's own seccomp filter (issue 11) ------------------------------------------------

    @Test
    void refusesSocketFamiliesOtherThanLocalAndIp() {
        // AF_VSOCK reaches the hypervisor on a VM host whatever the network namespace says; netlink beyond
        // NETLINK_ROUTE (here NETLINK_AUDIT, 9) and AF_PACKET are kernel surface. Python must still get its
        // local and IP sockets.
        org.junit.jupiter.api.Assumptions.assumeTrue(sandbox().isolation().has(IsolationFeature.SECCOMP),
                "the tier does not claim a seccomp filter of its own");
        Execution e = run("import errno, socket\n"
                + "for name, family, kind in [('vsock', 40, socket.SOCK_STREAM), ('netlink-audit', 16, socket.SOCK_RAW),\n"
                + "                           ('packet', 17, socket.SOCK_RAW), ('unix', 1, socket.SOCK_STREAM),\n"
                + "                           ('inet', 2, socket.SOCK_STREAM), ('inet6', 10, socket.SOCK_DGRAM)]:\n"
                + "    try:\n"
                + "        socket.socket(family, kind, 9 if family == 16 else 0).close()\n"
                + "        print(name, 'open')\n"
                + "    except OSError as x:\n"
                + "        print(name, errno.errorcode.get(x.errno, x.errno))\n", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text().lines().toList()).as(why(e))
                .containsExactly("vsock EPERM", "netlink-audit EPERM", "packet EPERM", "unix open", "inet open", "inet6 open");
    }

    @Test
    void refusesIoUring() {
        // io_uring does I/O no syscall filter sees; a refused io_uring_setup fails with EPERM, a working one gives an fd
        org.junit.jupiter.api.Assumptions.assumeTrue(sandbox().isolation().has(IsolationFeature.SECCOMP),
                "the tier does not claim a seccomp filter of its own");
        Execution e = run("import ctypes\n"
                + "libc = ctypes.CDLL(None, use_errno=True)\n"
                + "params = ctypes.create_string_buffer(120)\n"
                + "fd = libc.syscall(425, 4, params)\n"
                + "print('io_uring_setup', fd, ctypes.get_errno())\n", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).as(why(e)).isEqualTo("io_uring_setup -1 1\n");
    }

    @Test
    void cannotLowerTheRlimitsOfTheProcessesThatWatchIt() {
        // The supervisor that reports the run's exit status runs beside the program, in its namespace: with a
        // lowered RLIMIT_CPU, AS or NOFILE it would fail, and a failed sandbox is retried — the program would run
        // again. The call below sets what is already set (harmless where nothing stopped it), on every other process
        // the program can see; on itself it must work. The process tier's supervisor shares the program's uid and
        // is held by the seccomp filter; the docker tier's runs as another uid, and the kernel refuses.
        Execution e = run("import os, resource\n"
                + "def same(pid):\n"
                + "    return resource.prlimit(pid, resource.RLIMIT_CPU, resource.prlimit(pid, resource.RLIMIT_CPU))\n"
                + "me = os.getpid()\n"
                + "others = [int(d) for d in os.listdir('/proc') if d.isdigit() and int(d) != me]\n"
                + "print('others', 'some' if others else 'none')\n"
                + "same(0)\n"
                + "resource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
                + "print('self ok')\n"
                + "for pid in others:\n"
                + "    try:\n"
                + "        same(pid)\n"
                + "        print('REACHED', pid)\n"
                + "    except (PermissionError, ProcessLookupError):\n"
                + "        pass\n", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text().lines().toList()).as(why(e)).containsExactly("others some", "self ok");
    }

    @Test
    void theProgramHoldsNoCapabilityAndCannotGainOne() {
        // whatever the supervisor holds to set the run up (the docker tier's root init; under gVisor CAP_SYS_ADMIN
        // for its pids group), the program has nothing: no effective, permitted or ambient capability, and
        // no-new-privileges, so no setuid file gives one back; a mount is refused
        Execution e = run("import ctypes, os\n"
                + "status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)\n"
                + "for k in ('CapEff', 'CapPrm'):\n"
                + "    print(k, status.get(k, '?').strip())\n"
                + "libc = ctypes.CDLL(None, use_errno=True)\n"
                // asked of the kernel rather than read from /proc: gVisor's status has no CapAmb or NoNewPrivs line
                + "print('ambient', [c for c in range(64) if libc.prctl(47, 1, c, 0, 0) == 1])\n"
                + "print('no_new_privs', libc.prctl(39, 0, 0, 0, 0))\n"
                + "os.makedirs('m', exist_ok=True)\n"
                + "print('mount', libc.mount(b'none', b'm', b'tmpfs', 0, None), ctypes.get_errno() in (1, 13))\n", limits());
        assertThat(e.outcome()).as(why(e)).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text().lines().toList()).as(why(e)).containsExactly("CapEff 0000000000000000",
                "CapPrm 0000000000000000", "ambient []", "no_new_privs 1", "mount -1 True");
    }
}
