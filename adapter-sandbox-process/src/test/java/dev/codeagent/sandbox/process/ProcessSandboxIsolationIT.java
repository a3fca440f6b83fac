package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.IsolationFeature;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What the sandbox reports it achieved, with the host's tools taken away one by one (the probe runs a
 * real command each time), and strict mode refusing when something is missing.
 */
@Tag("slow")
class ProcessSandboxIsolationIT {

    private static final ProcessSandboxConfig CONFIG = ProcessSandboxConfig.defaults();
    private static final HostTools HOST = HostTools.detect();

    private static boolean capableHost() {
        return HOST.root() && HOST.bwrap() != null && HOST.setpriv() != null && HOST.prlimit() != null;
    }

    @Test
    void aCapableHostGetsEveryFeatureAndStrictModeStarts() {
        assumeThat(capableHost()).as("root with bubblewrap, setpriv and prlimit").isTrue();
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.STRICT, HOST)) {
            assertThat(s.mode()).isEqualTo(Mode.BWRAP);
            assertThat(s.isolation().features()).containsExactlyInAnyOrderElementsOf(IsolationProbe.ALL_FEATURES);
            assertThat(s.isolation().missing()).isEmpty();
        }
    }

    @Test
    void strictModeRefusesWithoutBubblewrapAndSaysWhatIsMissing() {
        assertThatThrownBy(() -> new ProcessSandbox(CONFIG, IsolationMode.STRICT, HOST.withoutBwrap()).close())
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining("strict")
                .hasMessageContaining("fs-view")
                .hasMessageContaining("bubblewrap (bwrap) is not installed")
                .hasMessageContaining("best-effort")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void strictModeRefusesWithoutAnOwnUid() {
        assertThatThrownBy(() -> new ProcessSandbox(CONFIG, IsolationMode.STRICT, HOST.withoutRoot()).close())
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining("unprivileged-uid");
    }

    @Test
    void strictModeRefusesWithoutControlGroupsAndSaysWhichGuaranteesAreMissing() {
        assumeThat(capableHost()).as("root with bubblewrap, setpriv and prlimit").isTrue();
        assertThatThrownBy(() -> new ProcessSandbox(CONFIG, IsolationMode.STRICT, HOST.withoutCgroups()).close())
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageContaining("strict")
                .hasMessageContaining("cgroup-memory").hasMessageContaining("cgroup-cpu").hasMessageContaining("cgroup-pids")
                .hasMessageContaining("control groups are not available")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    /** Without a group nothing the program cannot write measures its CPU time: its own SIGXCPU is not the limit. */
    @Test
    void withoutControlGroupsASigxcpuTheProgramSendsItselfIsARuntimeError() {
        assumeThat(capableHost()).as("root with bubblewrap, setpriv and prlimit").isTrue();
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.BEST_EFFORT, HOST.withoutCgroups())) {
            Execution e = s.execute(ExecutionRequest.of(Language.PYTHON, "import os\nos.kill(os.getpid(), 24)"));
            assertThat(e.signal()).as(String.valueOf(e.detail())).isEqualTo(24);
            assertThat(e.outcome()).isEqualTo(Outcome.RUNTIME_ERROR);
            assertThat(e.detail()).contains("SIGXCPU").contains("not the limit");
        }
    }

    @Test
    void withoutControlGroupsBestEffortSaysSoAndStillRuns() {
        assumeThat(capableHost()).as("root with bubblewrap, setpriv and prlimit").isTrue();
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.BEST_EFFORT, HOST.withoutCgroups())) {
            assertThat(s.isolation().missing()).containsExactlyInAnyOrder(IsolationFeature.CGROUP_MEMORY,
                    IsolationFeature.CGROUP_CPU, IsolationFeature.CGROUP_PIDS);
            assertThat(s.isolation().features()).doesNotContain(IsolationFeature.CGROUP_MEMORY);
            Execution e = s.execute(ExecutionRequest.of(Language.PYTHON, "print(6 * 7)"));
            assertThat(e.outcome()).as(String.valueOf(e.detail())).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).isEqualTo("42\n");
            assertThat(e.isolation().missing()).contains(IsolationFeature.CGROUP_MEMORY);
        }
    }

    @Test
    void withoutBubblewrapUnshareStillIsolatesProcessesAndNetworkButNotFiles() {
        assumeThat(HOST.root() && HOST.unshare() != null && HOST.setpriv() != null).isTrue();
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.BEST_EFFORT, HOST.withoutBwrap())) {
            Isolation i = s.isolation();
            assertThat(s.mode()).isEqualTo(Mode.UNSHARE);
            assertThat(i.features()).contains(IsolationFeature.PID_NAMESPACE, IsolationFeature.NETWORK_NONE,
                    IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.IPC_NAMESPACE, IsolationFeature.UNPRIVILEGED_UID,
                    IsolationFeature.RLIMITS);
            // no bubblewrap: no view, nothing to load the filter, no supervisor; the control group works all the same
            assertThat(i.missing()).containsExactlyInAnyOrder(IsolationFeature.FS_VIEW, IsolationFeature.SECCOMP,
                    IsolationFeature.TMPFS_ONLY, IsolationFeature.INIT);
        }
    }

    @Test
    void withRlimitsAloneEveryNamespaceIsReportedMissing() {
        assumeThat(HOST.prlimit()).isNotNull();
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.BEST_EFFORT, HOST.withoutBwrap().withoutUnshare())) {
            assertThat(s.mode()).isEqualTo(Mode.PLAIN);
            assertThat(s.isolation().features()).contains(IsolationFeature.RLIMITS).doesNotContain(IsolationFeature.PID_NAMESPACE,
                    IsolationFeature.NETWORK_NONE, IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.FS_VIEW);
            assertThat(s.isolation().missing()).contains(IsolationFeature.PID_NAMESPACE, IsolationFeature.NETWORK_NONE,
                    IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.IPC_NAMESPACE, IsolationFeature.FS_VIEW);
        }
    }

    @Test
    void withoutPrlimitNoRlimitsAreClaimed() {
        HostTools noLimits = new HostTools(HOST.root(), null, HOST.setpriv(), null, null, HOST.setsid(), null);
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.BEST_EFFORT, noLimits)) {
            assertThat(s.isolation().features()).doesNotContain(IsolationFeature.RLIMITS);
            assertThat(s.isolation().missing()).contains(IsolationFeature.RLIMITS);
        }
    }

    @Test
    void aConfiguredInterpreterThatIsNotANativeBinaryIsRefusedClearly() {
        ProcessSandboxConfig shim = new ProcessSandboxConfig("/bin/true-no-such-python", null, null, null);
        assertThatThrownBy(() -> new ProcessSandbox(shim, IsolationMode.BEST_EFFORT, HOST).close())
                .isInstanceOf(SandboxUnavailableException.class)
                .hasMessageStartingWith("sandbox.process.python: '/bin/true-no-such-python' is not an executable native binary");
    }

    @Test
    void listsOnlyLanguagesWhoseInterpreterExistsAndRunsTheRealPythonBinary() {
        try (ProcessSandbox s = new ProcessSandbox(CONFIG, IsolationMode.BEST_EFFORT, HOST)) {
            assertThat(s.languages()).isNotEmpty();
            s.languages().forEach(l -> assertThat(s.interpreterCommand(l)).isNotEmpty());
            s.interpreterCommand(dev.codeagent.domain.execution.Language.PYTHON).stream().findFirst()
                    .ifPresent(bin -> assertThat(Interpreters.nativeBinary(java.nio.file.Path.of(bin))).isPresent());
        }
    }
}
