package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.application.sandbox.HostProbe;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A sandbox closed on a thread whose interrupt flag is set (a shutdown run by a cancelled task, a timed-out test's
 * thread) must give back every uid it holds, the pre-started sandbox's included: a uid this JVM keeps locked is lost
 * to every sandbox of the host until the JVM exits (4096 in all).
 */
@Tag("slow")
class ProcessSandboxInterruptedCloseIT {

    @Test
    void aSandboxClosedOnAnInterruptedThreadGivesBackItsPreStartedSandboxsUid() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        Set<Long> before = claimedByThisJvm();
        Set<Long> ours = new TreeSet<>();
        ScratchSandbox scratch = ScratchSandbox.start("codeagent-interrupted-close-", true);
        try {
            for (int i = 0; i < 2; i++) {
                Execution e = scratch.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON, "print(1)"), "",
                        ResourceLimits.defaults()));
                assertThat(e.outcome()).as(e.stderr().text()).isEqualTo(Outcome.OK);
            }
            // the second execution refilled the pool: wait for the pre-started sandbox's uid, then for its start
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (claimedByThisJvm().equals(before) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(claimedByThisJvm()).as("a sandbox was pre-started").isNotEqualTo(before);
            ours.addAll(claimedByThisJvm());
            ours.removeAll(before);
            Thread.sleep(2000);
        } finally {
            Thread.currentThread().interrupt();
            try {
                scratch.sandbox.close();
            } finally {
                Thread.interrupted();
            }
            WorkDir.delete(scratch.workRoot);
        }
        // (only this sandbox's: an earlier test's uid may be given back meanwhile)
        assertThat(ours).as("the pre-started sandbox's uid").isNotEmpty();
        assertThat(claimedByThisJvm()).as("uids this JVM still holds after the sandbox closed").doesNotContainAnyElementsOf(ours);
    }

    /** As with a run in flight: close waits for its clean-up (bounded) also when the closing thread is interrupted. */
    @Test
    void aSandboxClosedOnAnInterruptedThreadStillCleansUpItsRunsInFlight() throws Exception {
        HostSupport.requireRootBwrapAndCgroups();
        ScratchSandbox scratch = ScratchSandbox.start("codeagent-interrupted-close-run-", false);
        String marker = HostProbe.marker("interrupted-close");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            pool.submit(() -> scratch.sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import time\ntime.sleep(60)"), "", List.of(marker), ResourceLimits.defaults().withWallTime(Duration.ofSeconds(60)))));
            HostProbe.awaitProcessWithArg(marker, Duration.ofSeconds(20));
            assertThat(HostProbe.processesWithArg(marker)).as("the run started").isNotEmpty();
            Set<Long> ours = claimedByThisJvm();
            Thread.currentThread().interrupt();
            try {
                scratch.sandbox.close();
            } finally {
                Thread.interrupted();
            }
            // at once: what close() is for is that nothing of its runs is left when it returns
            assertThat(HostProbe.processesWithArg(marker)).as("the run's program after close()").isEmpty();
            Set<Long> left = claimedByThisJvm();
            left.retainAll(ours);
            assertThat(left).as("the run's uid after close()").isEmpty();
        } finally {
            pool.shutdownNow();
            WorkDir.delete(scratch.workRoot);
        }
    }

    /** The pool uids this JVM holds (another JVM's locks are not counted: they are not this sandbox's). */
    private static Set<Long> claimedByThisJvm() {
        Set<Long> held = new TreeSet<>();
        for (long uid = UidPool.BASE; uid < UidPool.BASE + UidPool.MAX; uid++) {
            if (UidPool.heldByThisJvm(uid)) {
                held.add(uid);
            }
        }
        return held;
    }
}
