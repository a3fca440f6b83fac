package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the process tier does beyond the shared contract. */
@Tag("slow")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcessSandboxIT {

    private static Path workRoot;
    private static ProcessSandbox sandbox;

    @BeforeAll
    static void start() throws Exception {
        workRoot = Files.createTempDirectory("codeagent-process-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        sandbox = new ProcessSandbox(new ProcessSandboxConfig(null, null, null, workRoot.toString()), IsolationMode.BEST_EFFORT);
    }

    @AfterAll
    static void stop() throws Exception {
        sandbox.close();
        WorkDir.delete(workRoot);
    }

    private static Execution python(String code, ResourceLimits limits) {
        return sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, code), "", limits));
    }

    @Test
    void measuresCpuTimeAndPeakMemoryWhereGnuTimeIsInstalled() {
        assumeThat(HostTools.detect().time()).isNotNull();
        Execution e = python("x = bytearray(64 * 1024 * 1024)\nfor i in range(len(x) // 4096):\n    x[i * 4096] = 1\n"
                + "n = 0\nfor i in range(3_000_000):\n    n += i\nprint(n > 0)", ResourceLimits.defaults());
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(e.cpuTime()).isNotNull().isGreaterThan(Duration.ofMillis(20));
        assertThat(e.peakMemoryBytes()).isNotNull().isGreaterThan(64L * 1024 * 1024);
    }

    @Test
    void theProgramNotItsSupervisorIsTheOomKillersFirstChoice() {
        assumeThat(sandbox.isolation().has(IsolationFeature.INIT)).isTrue();
        // the supervisor is non-dumpable, which made its child's /proc files root's: the write failed unseen (found
        // by an attack review; the unit test of the supervisor runs as root, where it succeeded)
        Execution e = python("print(open('/proc/self/oom_score_adj').read().strip(), open('/proc/1/oom_score_adj').read().strip())",
                ResourceLimits.defaults());
        assertThat(e.stdout().text()).as(e.toString()).isEqualTo("1000 0\n");
    }

    @Test
    void aSupervisorKilledFromOutsideTheRunIsTheSandboxsErrorNotTheProgramsDeath() throws Exception {
        // the program cannot kill its supervisor (pid 1 of its namespace ignores a SIGKILL from inside), so a run with
        // no report, SIGKILL's status and a group that saw no limit was ended by something outside it: blaming the
        // program (RUNTIME_ERROR "killed by signal 9") would be a fact the sandbox made up
        assumeThat(sandbox.isolation().has(IsolationFeature.INIT)).isTrue();
        assumeThat(sandbox.isolation().has(IsolationFeature.CGROUP_MEMORY)).isTrue();
        String marker = HostProbe.marker("outside-kill");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Execution> run = pool.submit(() -> sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import time\nprint('started', flush=True)\ntime.sleep(60)"), "", List.of(marker),
                    ResourceLimits.defaults().withWallTime(Duration.ofSeconds(60)))));
            HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(20));
            long program = HostProbe.processesWithArg(marker).get(0);
            String stat = Files.readString(Path.of("/proc", Long.toString(program), "stat"));
            long supervisor = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
            assertThat(Files.readString(Path.of("/proc", Long.toString(supervisor), "status")))
                    .as("the program's parent is its namespace's pid 1").containsPattern("NSpid:\\s+\\d+\\s+1\\n");
            assertThat(new ProcessBuilder("kill", "-KILL", Long.toString(supervisor)).start().waitFor()).isZero();

            Execution e = run.get(30, TimeUnit.SECONDS);
            assertThat(e.outcome()).as(e.toString()).isEqualTo(Outcome.SANDBOX_ERROR);
            assertThat(e.detail()).contains("killed from outside the run");
            assertThat(HostProbe.processesWithArg(marker)).isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentRunsGetDifferentUnprivilegedUids() throws Exception {
        assumeThat(sandbox.isolation().has(IsolationFeature.UNPRIVILEGED_UID)).isTrue();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Execution>> runs = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                runs.add(pool.submit(() -> python("import os, time\ntime.sleep(0.4)\nprint(os.getuid(), os.getgid(), os.getgroups())",
                        ResourceLimits.defaults())));
            }
            Set<String> uids = new HashSet<>();
            for (Future<Execution> f : runs) {
                Execution e = f.get(30, TimeUnit.SECONDS);
                assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
                String[] parts = e.stdout().text().trim().split(" ", 3);
                long uid = Long.parseLong(parts[0]);
                assertThat(uid).isGreaterThanOrEqualTo(UidPool.BASE);
                assertThat(parts[1]).isEqualTo(parts[0]);
                uids.add(parts[0]);
            }
            assertThat(uids).hasSize(4);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void thirdPartyPackagesAreImportableThroughTheSiteModule() throws Exception {
        String python = sandbox.interpreterCommand(Language.PYTHON).get(0);
        Process host = new ProcessBuilder(python, "-I", "-c", "import yaml").redirectErrorStream(true).start();
        host.getInputStream().readAllBytes();
        assumeThat(host.waitFor()).as("PyYAML is installed for " + python).isZero();
        Execution e = python("import sys\nprint('site' in sys.modules)\nimport yaml\nprint(yaml.safe_load('a: 1'))",
                ResourceLimits.defaults());
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text()).isEqualTo("True\n{'a': 1}\n");
    }

    @Test
    void closingTheSandboxKillsRunsInFlight() throws Exception {
        Path root = Files.createTempDirectory(workRoot, "close-");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
        ProcessSandbox own = new ProcessSandbox(new ProcessSandboxConfig(null, null, null, root.toString()), IsolationMode.BEST_EFFORT);
        String marker = HostProbe.marker("close");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Execution> run = pool.submit(() -> own.execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import time\ntime.sleep(60)"), "", List.of(marker), ResourceLimits.defaults().withWallTime(Duration.ofSeconds(60)))));
            HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(20));
            own.close();
            assertThatThrownBy(() -> run.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(dev.codeagent.domain.execution.ExecutionCancelledException.class)
                    .hasMessageContaining("sandbox was closed");
            assertThat(HostProbe.processesWithArg(marker)).isEmpty();
            assertThat(own.execute(ExecutionRequest.of(Language.PYTHON, "print(1)")).outcome()).isEqualTo(Outcome.SANDBOX_ERROR);
        } finally {
            own.close();
            pool.shutdownNow();
        }
    }

    @Test
    void removesWorkDirectoriesThatADeadJvmLeftBehindButNotLiveOnes() throws Exception {
        assumeThat(sandbox.isolation().has(IsolationFeature.UNPRIVILEGED_UID)).isTrue();
        Path root = Files.createTempDirectory(workRoot, "leftovers-");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
        Path orphan = Files.createDirectories(root.resolve("codeagent-run-1"));
        Files.writeString(orphan.resolve("main.py"), "print(1)");
        long deadUid = UidPool.BASE + UidPool.MAX - 1;
        Files.setAttribute(orphan, "unix:uid", (int) deadUid);
        Path live = Files.createDirectories(root.resolve("codeagent-run-2"));
        Path unrelated = Files.createDirectories(root.resolve("codeagent-run-3"));
        Path deadWarm = Files.createDirectories(root.resolve("codeagent-warm-1").resolve("warm-1"));
        Files.setAttribute(deadWarm, "unix:uid", (int) deadUid);
        Path liveWarm = Files.createDirectories(root.resolve("codeagent-warm-2").resolve("warm-2"));
        Path emptyWarm = Files.createDirectories(root.resolve("codeagent-warm-3"));
        try (UidPool holder = new UidPool(UidPool.hostLockDir(), uid -> false)) {
            long held = holder.acquire();
            Files.setAttribute(live, "unix:uid", (int) held);
            Files.setAttribute(liveWarm, "unix:uid", (int) held);
            new ProcessSandbox(new ProcessSandboxConfig(null, null, null, root.toString()), IsolationMode.BEST_EFFORT).close();
            assertThat(orphan).doesNotExist();
            assertThat(live).as("a run of a live JVM").isDirectory();
            assertThat(unrelated).as("not a sandbox uid").isDirectory();
            assertThat(deadWarm.getParent()).as("pre-started sandboxes of a dead JVM").doesNotExist();
            assertThat(liveWarm).as("a pre-started sandbox of a live JVM").isDirectory();
            assertThat(emptyWarm).as("maybe a live JVM's, between two pre-starts").isDirectory();
        } finally {
            WorkDir.delete(root);
        }
    }

    @Test
    void javaScriptMemoryLimitIsAMemoryLimit() {
        assumeThat(sandbox.languages()).contains(Language.JAVASCRIPT);
        Execution e = sandbox.execute(new ExecutionRequest(new Program(Language.JAVASCRIPT,
                "const a = []; while (true) { a.push(new Array(1e6).fill(1.5)); }"), "",
                ResourceLimits.defaults().withMemoryBytes(128 * ResourceLimits.MIB)));
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.MEMORY_LIMIT);
    }

    @Test
    void programsSeeOnlyTheirOwnProcesses() {
        assumeThat(sandbox.isolation().has(IsolationFeature.PID_NAMESPACE)).isTrue();
        Execution e = python("import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))", ResourceLimits.defaults());
        assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        List<String> pids = List.of(e.stdout().text().trim().replaceAll("[\\[\\] ]", "").split(","));
        assertThat(pids.size()).as("init, the measuring parent and the program: " + pids).isLessThanOrEqualTo(4);
    }
}
