package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.SandboxWholeRunAttackTest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Sandbox;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The whole-run attacks against the process tier with no pre-started sandbox: every run cold (its group made
 * for it and joined by the launcher). On a host that
 * can give a run a control group, a seccomp filter and the supervisor (root, bubblewrap, cgroups, Python:
 * this machine and CI) the tier must claim them; elsewhere {@link HostSupport} skips, or fails under CI.
 */
@Tag("slow")
class ProcessSandboxColdWholeRunAttackIT extends SandboxWholeRunAttackTest {

    private static ScratchSandbox scratch;

    @BeforeAll
    static void start() throws Exception {
        scratch = ScratchSandbox.start("codeagent-coldrun-root-", false);
    }

    @AfterAll
    static void stop() throws Exception {
        scratch.stop();
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
    void claimsTheWholeRunGuaranteesWhereTheHostHasThem() {
        HostSupport.requireRootBwrapAndCgroups();
        assertThat(scratch.sandbox.isolation().features()).contains(IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_CPU,
                IsolationFeature.CGROUP_PIDS, IsolationFeature.SECCOMP, IsolationFeature.TMPFS_ONLY, IsolationFeature.INIT);
    }
}
