package dev.codeagent.sandbox.docker;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.HostConfig;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What only the docker tier promises: the hardened container shape, the single-use warm pool, cleanup. */
@Tag("docker")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DockerSandboxIT {

    private static final ResourceLimits LIMITS = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10));
    private static DockerSandbox pooled;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        pooled = DockerTestSupport.sandbox(2, ResourceLimits.defaults());
    }

    @AfterAll
    static void stopAndLeaveNothingBehind() {
        if (pooled != null) {
            pooled.close();
            assertThat(DockerTestSupport.containersOf(pooled.ownerId())).as("containers of the closed sandbox").isEmpty();
            assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
        }
    }

    private static Execution run(DockerSandbox s, String python, ResourceLimits limits, String... args) {
        return s.execute(new ExecutionRequest(new Program(Language.PYTHON, python), "", List.of(args), limits));
    }

    @Test
    void runsTheProgramInAHardenedContainer() throws Exception {
        String probe = "import os, resource, socket\n"
                + "st = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
                + "print('ids', os.getuid(), os.getgid())\n"
                + "print('caps', st['CapEff'].strip(), st['CapPrm'].strip(), st['CapBnd'].strip())\n"
                + "def tries(f):\n"
                + "    try:\n"
                + "        f()\n"
                + "        return 'done'\n"
                + "    except PermissionError:\n"
                + "        return 'refused'\n"
                + "print('pid1', tries(lambda: os.kill(1, 0)), tries(lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (3, 3))))\n"
                + "print('nnp', st['NoNewPrivs'].strip(), 'seccomp', st['Seccomp'].strip())\n"
                + "print('rootro', bool(os.statvfs('/').f_flag & os.ST_RDONLY))\n"
                + "for d in ('/work', '/tmp'):\n"
                + "    v = os.statvfs(d)\n"
                + "    print('size', d, v.f_blocks * v.f_frsize, bool(v.f_flag & os.ST_NOSUID))\n"
                + "print('nofile', resource.getrlimit(resource.RLIMIT_NOFILE))\n"
                + "print('fsize', resource.getrlimit(resource.RLIMIT_FSIZE))\n"
                + "print('core', resource.getrlimit(resource.RLIMIT_CORE))\n"
                + "print('ifaces', sorted(n for _, n in socket.if_nameindex()))\n"
                + "print('host', socket.gethostname(), flush=True)\n"
                + "import time\ntime.sleep(1.5)\n";
        try (DockerSandbox cold = DockerTestSupport.sandbox(0, ResourceLimits.defaults());
                DockerEngine engine = DockerTestSupport.engine()) {
            ResourceLimits limits = LIMITS.withMemoryBytes(96 * ResourceLimits.MIB).withMaxProcesses(20).withMaxFileBytes(123_456);
            CompletableFuture<Execution> running = CompletableFuture.supplyAsync(() -> run(cold, probe, limits));
            String id = awaitOnlyContainer(cold.ownerId());
            InspectContainerResponse c = engine.inspect(id);
            Execution e = running.get(30, TimeUnit.SECONDS);
            assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);

            HostConfig h = c.getHostConfig();
            assertThat(h.getNetworkMode()).isEqualTo("none");
            assertThat(h.getCapDrop()).containsExactly(Capability.ALL);
            // only for the root supervisor, which runs the program (and a judge) as other uids
            assertThat(h.getCapAdd()).containsExactlyInAnyOrder(Capability.SETUID, Capability.SETGID, Capability.KILL);
            assertThat(h.getSecurityOpts()).contains("no-new-privileges");
            assertThat(h.getReadonlyRootfs()).isTrue();
            assertThat(h.getMemory()).isEqualTo(96 * ResourceLimits.MIB + DockerContainers.SUPERVISOR_MEMORY);
            assertThat(h.getMemorySwap()).isEqualTo(h.getMemory());
            assertThat(h.getPidsLimit()).isEqualTo(20L + DockerContainers.SUPERVISOR_PROCESSES);
            assertThat(h.getNanoCPUs()).isEqualTo(1_000_000_000L);
            assertThat(h.getLogConfig().getType().getType()).isEqualTo("none");
            assertThat(h.getInit()).as("no docker-init: the supervisor itself is pid 1").isFalse();
            assertThat(h.getTmpFs()).containsKeys("/work", "/tmp");
            assertThat(c.getConfig().getUser()).isEqualTo("0:0");
            assertThat(c.getConfig().getLabels()).containsEntry(DockerSandbox.LABEL_SANDBOX, "true")
                    .containsEntry(DockerSandbox.LABEL_OWNER, cold.ownerId());

            String out = e.stdout().text();
            assertThat(out).contains("ids 65534 65534\n")
                    // no capability at all; the bounding set still holds the supervisor's three, which no_new_privs
                    // and an empty permitted set leave unusable
                    .contains("caps 0000000000000000 0000000000000000 00000000000000e0\n")
                    // the supervisor is root: the program can neither signal nor limit it (a same-uid pid 1 could be)
                    .contains("pid1 refused refused\n")
                    .contains("nnp 1 seccomp 2\n")
                    .contains("rootro True\n")
                    .contains("size /work " + 64 * ResourceLimits.MIB + " True\n")
                    .contains("size /tmp " + 64 * ResourceLimits.MIB + " True\n")
                    .contains("nofile (256, 256)\n")
                    .contains("fsize (123456, 123456)\n")
                    .contains("core (0, 0)\n")
                    .contains("ifaces ['lo']\n")
                    .contains("host " + id.substring(0, 12) + "\n");
            assertThat(e.cpuTime()).isNotNull().isPositive();
            assertThat(e.peakMemoryBytes()).isNotNull().isGreaterThan(1_000_000L);
            // a container whose program reported its end is removed in the background
            assertThat(cold.awaitSettled(Duration.ofSeconds(20))).isTrue();
            assertThat(DockerTestSupport.containersOf(cold.ownerId())).as("removed after the run").isEmpty();
        }
    }

    private static String awaitOnlyContainer(String ownerId) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            List<String> ids = DockerTestSupport.containersOf(ownerId);
            if (ids.size() == 1) {
                return ids.get(0);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no container of " + ownerId + " appeared");
    }

    @Test
    void passesNothingFromOneExecutionToTheNext() {
        String code = "import os, socket\n"
                + "print(socket.gethostname(), sorted(os.listdir('.')), sorted(os.listdir('/tmp')))\n"
                + "open('left.txt', 'w').write('x')\nopen('/tmp/left.txt', 'w').write('x')\n";
        assertThat(pooled.awaitSettled(Duration.ofSeconds(30))).isTrue();
        Execution first = run(pooled, code, LIMITS);
        Execution second = run(pooled, code, LIMITS);
        assertThat(first.outcome()).as(first.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(second.outcome()).as(second.stderr().text()).isEqualTo(Outcome.OK);
        String[] a = first.stdout().text().split(" ", 2);
        String[] b = second.stdout().text().split(" ", 2);
        assertThat(a[1]).isEqualTo("['main.py'] []\n");
        assertThat(b[1]).isEqualTo("['main.py'] []\n");
        assertThat(a[0]).as("a different container each time").isNotEqualTo(b[0]);
    }

    @Test
    void servesFromTheWarmPoolAndRefillsIt() {
        assertThat(pooled.awaitSettled(Duration.ofSeconds(30))).isTrue();
        assertThat(pooled.warmContainers()).isEqualTo(2);
        List<String> before = DockerTestSupport.containersOf(pooled.ownerId());
        assertThat(before).hasSize(2);
        Execution e = run(pooled, "import socket\nprint(socket.gethostname())", LIMITS);
        assertThat(e.outcome()).isEqualTo(Outcome.OK);
        assertThat(before).anyMatch(id -> id.startsWith(e.stdout().text().trim()));
        assertThat(pooled.awaitSettled(Duration.ofSeconds(30))).as("refilled").isTrue();
        List<String> after = DockerTestSupport.containersOf(pooled.ownerId());
        assertThat(after).hasSize(2).noneMatch(id -> id.startsWith(e.stdout().text().trim()));
    }

    @Test
    void requestsWithOtherLimitsGetAFreshContainerWithThoseLimits() {
        ResourceLimits small = LIMITS.withMemoryBytes(48 * ResourceLimits.MIB);
        Execution ok = run(pooled, "x = bytearray(16 * 1024 * 1024)\nprint('fits')", small);
        assertThat(ok.outcome()).as(ok.stderr().text()).isEqualTo(Outcome.OK);
        Execution bomb = run(pooled, "x = bytearray(160 * 1024 * 1024)\nprint('fits too')", small);
        assertThat(bomb.outcome()).isEqualTo(Outcome.MEMORY_LIMIT);
        assertThat(bomb.stdout().text()).isEmpty();
    }

    @Test
    void reportsTheIsolationItEnforces() {
        assertThat(pooled.isolation().tier()).isEqualTo("docker");
        assertThat(pooled.isolation().features()).contains(IsolationFeature.CONTAINER, IsolationFeature.NETWORK_NONE,
                IsolationFeature.CAP_DROP_ALL, IsolationFeature.NO_NEW_PRIVILEGES, IsolationFeature.UNPRIVILEGED_UID,
                IsolationFeature.READ_ONLY_ROOT, IsolationFeature.CGROUP_PIDS, IsolationFeature.TMPFS_SIZE_CAP,
                IsolationFeature.RLIMITS);
        assertThat(pooled.languages()).contains(Language.PYTHON);
    }

    @Test
    void closeRemovesEveryContainerItMade() {
        DockerSandbox s = DockerTestSupport.sandbox(2, ResourceLimits.defaults());
        try {
            assertThat(s.awaitSettled(Duration.ofSeconds(30))).isTrue();
            assertThat(run(s, "print(1)", LIMITS).outcome()).isEqualTo(Outcome.OK);
            assertThat(DockerTestSupport.containersOf(s.ownerId())).isNotEmpty();
        } finally {
            s.close();
        }
        assertThat(DockerTestSupport.containersOf(s.ownerId())).isEmpty();
        assertThat(run(s, "print(1)", LIMITS).outcome()).as("a closed sandbox runs nothing").isEqualTo(Outcome.SANDBOX_ERROR);
    }

    @Test
    void removesStraysOfADeadProcessAtStartButNotContainersOfLiveOnes() throws Exception {
        Process gone = new ProcessBuilder("/bin/true").start();
        gone.waitFor(10, TimeUnit.SECONDS);
        String host = StrayContainers.processTag().split("\\|")[0];
        try (DockerEngine engine = DockerTestSupport.engine()) {
            DockerContainers.Spec strayShape = DockerContainers.Spec.of(DockerTestSupport.IMAGE, ResourceLimits.defaults(), 1.0,
                    ByteSize.ofMiB(8).bytes(), Map.of(DockerContainers.LABEL_SANDBOX, "true", DockerContainers.LABEL_OWNER, "test-stray",
                            DockerContainers.LABEL_PROCESS, host + "|" + gone.pid() + "|1"));
            DockerContainers.Spec liveShape = DockerContainers.Spec.of(DockerTestSupport.IMAGE, ResourceLimits.defaults(), 1.0,
                    ByteSize.ofMiB(8).bytes(), Map.of(DockerContainers.LABEL_SANDBOX, "true", DockerContainers.LABEL_OWNER, "test-live",
                            DockerContainers.LABEL_PROCESS, StrayContainers.processTag()));
            String stray = engine.create(strayShape);
            String live = engine.create(liveShape);
            try {
                DockerTestSupport.sandbox(0, ResourceLimits.defaults()).close();
                assertThat(DockerTestSupport.containersOf("test-stray")).as("the stray").isEmpty();
                assertThat(DockerTestSupport.containersOf("test-live")).as("a live process's container").containsExactly(live);
            } finally {
                engine.remove(stray);
                engine.remove(live);
            }
        }
    }

    @Test
    void saysInOneLineThatTheImageIsMissing() {
        DockerSandboxConfig noImage = new DockerSandboxConfig(null, "codeagent-no-such-image:0", 0, 1.0, ByteSize.ofMiB(64));
        assertThatThrownBy(() -> DockerSandbox.create(noImage))
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining("codeagent-no-such-image:0")
                .hasMessageContaining("scripts/build-sandbox-image.sh")
                .hasMessageNotContaining("\n");
    }

    @Test
    void isWhatTheCompositionBuildsForSandboxKindDocker() {
        String yaml = "sandbox:\n  kind: docker\n  docker:\n    image: " + DockerTestSupport.IMAGE + "\n    poolSize: 0\n";
        try (CodeAgent agent = CodeAgent.create(new ConfigLoader().parse(yaml))) {
            assertThat(agent.knownKeys("sandbox")).contains("docker");
            assertThat(agent.sandbox()).isInstanceOf(DockerSandbox.class);
            Execution e = agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, "print(6 * 7)"));
            assertThat(e.outcome()).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).isEqualTo("42\n");
            assertThat(e.isolation().tier()).isEqualTo("docker");
        }
    }
}
