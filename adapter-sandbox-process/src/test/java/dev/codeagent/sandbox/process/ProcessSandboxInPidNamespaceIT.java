package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
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
}
