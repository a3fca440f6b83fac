package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The whole-run attacks against the process tier run by a JVM that is pid 1 of a pid namespace of its own with that
 * namespace's /proc, as in many containers and under {@code unshare -p -f --mount-proc}, while a sandbox outside holds
 * a live run group of its own in the same hierarchies (both arranged by {@code src/test/sh/in-pid-namespace/bin/java},
 * failsafe's JVM for this class: see this module's pom). That tier once made no control groups at all there, and a
 * 1 GiB memfd under a 256 MiB limit ended OK. Runs cold (the warm path is the same group code, tested outside).
 */
@Tag("slow")
class ProcessSandboxInPidNamespaceIT extends SandboxWholeRunAttackTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        // only failsafe's in-pid-namespace execution starts this class's JVM through the wrapper; the default one
        // excludes it, and runs it only when -Dit.test names it, as a plain JVM that has nothing to show here
        assumeTrue("1".equals(System.getenv("CODEAGENT_TEST_IN_PID_NAMESPACE")),
                "runs in failsafe's in-pid-namespace execution only");
        scratch = ScratchSandbox.start("codeagent-pidns-root-", false);
    }

    @AfterAll
    static void stop() throws Exception {
        if (scratch != null) {
            scratch.stop();
        }
    }

    @Override
    protected Sandbox sandbox() {
        return scratch.sandbox;
    }

    @Override
    protected List<Path> hostScratchDirs() {
        return List.of(scratch.workRoot);
    }

    @Test
    void runsAsTheFirstProcessOfAPidNamespaceOfItsOwn() {
        assertThat(ProcessHandle.current().pid())
                .as("started through src/test/sh/in-pid-namespace/bin/java (failsafe's <jvm> for this class), not a plain JVM").isEqualTo(1);
    }

    @Test
    void claimsTheWholeRunGuaranteesBesideALiveGroupItCannotSee() {
        HostSupport.requireRootBwrapAndCgroups();
        String outside = System.getenv("CODEAGENT_TEST_OUTSIDE_GROUP");
        assertThat(outside).as("the wrapper planted a live group outside this namespace").isNotBlank();
        ChildGroups groups = HostSupport.runGroups();
        for (Path parent : groups.parents()) {
            Path g = parent.getParent().resolve(ChildGroups.DEFAULT_PARENT).resolve(outside);
            assertThat(g).as("the outside sandbox's live group was left alone").isDirectory();
            assertThat(CgroupFiles.pids(List.of(g.resolve("cgroup.procs"))))
                    .as("its process is invisible from this namespace").isEmpty();
        }
        assertThat(scratch.sandbox.isolation().features()).contains(IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_CPU,
                IsolationFeature.CGROUP_PIDS, IsolationFeature.SECCOMP, IsolationFeature.TMPFS_ONLY, IsolationFeature.INIT);
        assertThat(Files.isDirectory(Path.of("/proc/1"))).isTrue();
    }

    /**
     * This JVM is pid 1 here: the run's processes whose parent dies first come to it, and it never reaps them (the
     * JDK waits for its own children only). Their zombies once piled up, about one and a half a killed run, and
     * counted against their pool uid's RLIMIT_NPROC until a later run of that uid could not fork or start a thread
     * (seen as EAGAIN in the zygote's attack tests run after the cold ones here).
     */
    @Test
    void killedRunsLeaveNoZombiesToThisJvm() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        ResourceLimits limits = limits().withWallTime(Duration.ofMillis(700));
        String holdOn = "import os, time\n"
                + "if os.fork() == 0:\n"
                + "    os.setsid()\n"
                + "    time.sleep(60)\n"
                + "print('started', flush=True)\n"
                + "time.sleep(60)\n";
        for (int i = 0; i < 12; i++) {
            Execution e = scratch.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, holdOn), "", List.of(), limits));
            assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.TIME_LIMIT);
            assertThat(e.stdout().text()).contains("started");
        }
        assertThat(lastingZombiesOfPidOne()).as("zombies whose parent is this JVM (pid 1)").isEmpty();
    }

    /**
     * The zygote is started through the same launcher as a run, so closing it must also kill its tree before the
     * launcher: killing the launcher alone once left the zygote's bubblewrap to this JVM as a root zombie, one for
     * every sandbox closed.
     */
    @Test
    void aClosedZygoteLeavesNoZombieToThisJvm() throws Exception {
        ScratchSandbox forking = ScratchSandbox.forking("codeagent-pidns-zygote-");
        try {
            Execution e = forking.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, "print('forked')"), "",
                    List.of(), limits()));
            assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
        } finally {
            forking.stop();
        }
        assertThat(lastingZombiesOfPidOne()).as("zombies whose parent is this JVM (pid 1) after the zygote's sandbox closed")
                .isEmpty();
    }

    /**
     * The zombies of pid 1 still there after up to 5 s: the JDK reaps its own children a moment after they end, so
     * anything of pid 1's that stays a zombie is an orphan.
     */
    private static List<String> lastingZombiesOfPidOne() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        List<String> zombies = zombiesOfPidOne();
        while (!zombies.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            zombies = zombiesOfPidOne();
        }
        return zombies;
    }

    /** "pid comm uid" of each zombie whose parent is pid 1, read from /proc. */
    private static List<String> zombiesOfPidOne() throws IOException {
        List<String> found = new ArrayList<>();
        for (long pid : HostProcesses.pids()) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
                int close = stat.lastIndexOf(')');
                String[] f = stat.substring(close + 2).split(" ");
                if (f[0].equals("Z") && f[1].equals("1")) {
                    found.add(pid + " " + stat.substring(stat.indexOf('(') + 1, close));
                }
            } catch (IOException gone) {
                // ended meanwhile
            }
        }
        return found;
    }
}
