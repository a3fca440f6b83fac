package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.application.sandbox.SandboxMemoryVerdictTest;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The docker tier on gVisor (runsc): the same suites as {@link DockerRuncIT} but sessions. The program's processes
 * live in gVisor's kernel, not in the host's /proc: gVisor's own process list ({@link GvisorProcesses}) is where
 * a suite looks for a program still running or left behind. Each suite has a sandbox of its own
 * ({@link DockerFixture}); afterwards no container is left.
 */
@Tag("docker")
class DockerRunscIT {

    /** The sandbox contract, with the warm pool: the whole suite. */
    @Nested
    class Contract extends SandboxContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(2);

        /** Whether anything besides the supervisor (gVisor's pid 1) runs in one of this sandbox's containers. */
        @Override
        protected boolean programRunning(String marker) throws Exception {
            return !GvisorProcesses.beyondInit(tier.sandbox().ownerId()).isEmpty();
        }

        @Override
        protected List<?> survivors(String marker) {
            return GvisorProcesses.leftAfter(tier.sandbox().ownerId(), survivorGrace());
        }

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** The judged-execution contract: candidate and judge as two uids under a root pid 1. */
    @Nested
    class Judged extends JudgedSandboxContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(2);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** Compiled languages: both stages inside gVisor's kernel. */
    @Nested
    class CompiledLanguages extends CompiledLanguagesContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(2);

        /** gVisor's ptrace platform makes every fork and exec slow: a kill and its clean-up take longer too. */
        @Override
        protected Duration slack() {
            return Duration.ofSeconds(6);
        }

        @Override
        protected List<?> survivors(String marker) {
            return GvisorProcesses.leftAfter(tier.sandbox().ownerId(), Duration.ZERO);
        }

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /**
     * The threat table's attacks, plus proof that the program talks to gVisor's kernel rather than the host's. The
     * pool is larger than runc's: a runsc container takes seconds to start on a loaded host, and the timed attacks
     * measure from the call, so a cold start in one of them would be counted against the limit it tests.
     */
    @Nested
    class Attack extends SandboxAttackTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(4)
                .warmFor(ResourceLimits.defaults().withMemoryBytes(128 * ResourceLimits.MIB).withMaxProcesses(32));

        @Test
        void theProgramTalksToGvisorsKernelNotTheHosts() throws IOException {
            assertThat(tier.sandbox().isolation().has(IsolationFeature.GVISOR)).isTrue();
            String hostRelease = Files.readString(Path.of("/proc/sys/kernel/osrelease")).trim();
            Execution e = tier.sandbox().execute(new ExecutionRequest(new Program(Language.PYTHON,
                    "import os\nprint(os.uname().release)\nprint(open('/proc/version').read().split()[0])"), "", List.of(),
                    ResourceLimits.defaults()));
            assertThat(e.outcome()).as(e.detail() + " " + e.stderr().text()).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text().lines().findFirst()).get().as("gVisor's kernel release").isNotEqualTo(hostRelease);
        }

        /** The program's processes live in gVisor's kernel: its own process list is where survivors would show. */
        @Override
        protected List<?> survivors(String marker) {
            return GvisorProcesses.leftAfter(tier.sandbox().ownerId(), survivorGrace());
        }

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** The verdict a contest user expects of a program that touches 1 GiB under 256 MiB, in every language. */
    @Nested
    class MemoryVerdict extends SandboxMemoryVerdictTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runsc(2);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }

        /**
         * Under gVisor each page the program first touches is a fault its own kernel (the sentry) serves, and that CPU
         * is the container's: Node touching 256 MiB in 8 MiB buffers took 2.0–2.6 s of the group's CPU on a loaded
         * 2-core host (MEMORY_LIMIT at step 30 each time with room), so a 2 s CPU limit raced the memory limit and the
         * run ended TIME_LIMIT at its CPU limit, honestly, before it reached 256 MiB (clean-clone CI, twice in a row).
         * The subject here is the memory verdict; 6 s of CPU keeps a run that thrashes in reclaim ending TIME_LIMIT.
         */
        @Override
        protected ResourceLimits limits() {
            return super.limits().withCpuTime(Duration.ofSeconds(6)).withWallTime(Duration.ofSeconds(10));
        }
    }
}
