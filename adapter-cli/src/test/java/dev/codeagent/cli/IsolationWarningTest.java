package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The command line's one line about a run that lacked a guarantee (the runs themselves: WithoutControlGroupsIT). */
class IsolationWarningTest {

    private static final Isolation FULL = Isolation.of("process", Set.of(IsolationFeature.PID_NAMESPACE, IsolationFeature.CGROUP_CPU),
            Set.of());
    private static final Isolation NO_GROUPS = Isolation.of("process", Set.of(IsolationFeature.PID_NAMESPACE),
            Set.of(IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_CPU, IsolationFeature.CGROUP_PIDS));

    @Test
    void aRunThatLackedNothingGetsNoLine() {
        assertThat(IsolationWarning.line(List.of(FULL))).isEmpty();
        assertThat(IsolationWarning.line(List.of())).as("a solve that never ran code").isEmpty();
        assertThat(IsolationWarning.line(Arrays.asList(FULL, null))).as("an attempt refused by the policy").isEmpty();
    }

    @Test
    void aRunThatLackedSomethingNamesEachGuaranteeAndTheKeyInOneLine() {
        String line = IsolationWarning.line(List.of(NO_GROUPS)).orElseThrow();
        assertThat(line).startsWith("codeagent: warning: this run had no cgroup-cpu, cgroup-memory, cgroup-pids (the process")
                .contains("--set sandbox.isolation=strict").doesNotContain("\n");
    }

    @Test
    void theAttemptsOfASolveAreOneRun() {
        Isolation noSeccomp = Isolation.of("process", Set.of(), Set.of(IsolationFeature.SECCOMP));
        String line = IsolationWarning.line(List.of(NO_GROUPS, FULL, noSeccomp, NO_GROUPS)).orElseThrow();
        assertThat(line).contains("no cgroup-cpu, cgroup-memory, cgroup-pids, seccomp (the process sandbox");
        assertThat(line.split("cgroup-cpu", -1)).hasSize(2);
    }
}
