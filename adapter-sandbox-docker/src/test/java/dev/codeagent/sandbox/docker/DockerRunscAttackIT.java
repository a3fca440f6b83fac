package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.Sandbox;
import java.util.List;
import org.junit.jupiter.api.Test;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The same attacks as {@link DockerSandboxAttackIT}, against the docker tier on gVisor (runsc): the whole
 * suite, plus proof that the program talks to gVisor's kernel rather than the host's. The pool is larger than
 * runc's: a runsc container takes seconds to start on a loaded host, and the timed attacks measure from the
 * call, so a cold start in one of them would be counted against the limit it tests.
 */
@Tag("docker")
class DockerRunscAttackIT extends SandboxAttackTest {

    private static DockerSandbox sandbox;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        sandbox = DockerTestSupport.runscSandbox(4, ResourceLimits.defaults()
                .withMemoryBytes(128 * ResourceLimits.MIB).withMaxProcesses(32));
        // the attacks meet warm containers, as requests do: a cold start on a loaded host is not what the
        // wall-clock tests time (the limit starts with the program; see DockerExecutions.START_UP)
        sandbox.awaitSettled(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopAndLeaveNothingBehind() {
        if (sandbox != null) {
            sandbox.close();
            assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
        }
    }

    @Test
    void theProgramTalksToGvisorsKernelNotTheHosts() throws java.io.IOException {
        assertThat(sandbox.isolation().has(IsolationFeature.GVISOR)).isTrue();
        String hostRelease = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/sys/kernel/osrelease")).trim();
        Execution e = sandbox.execute(new ExecutionRequest(new Program(Language.PYTHON,
                "import os\nprint(os.uname().release)\nprint(open('/proc/version').read().split()[0])"), "", List.of(),
                ResourceLimits.defaults()));
        assertThat(e.outcome()).as(e.detail() + " " + e.stderr().text()).isEqualTo(Outcome.OK);
        assertThat(e.stdout().text().lines().findFirst()).get().as("gVisor's kernel release").isNotEqualTo(hostRelease);
    }

    /** The program's processes live in gVisor's kernel: its own process list is where survivors would show. */
    @Override
    protected java.util.List<?> survivors(String marker) {
        return GvisorProcesses.leftAfter(sandbox.ownerId(), survivorGrace());
    }

    @Override
    protected Sandbox sandbox() {
        return sandbox;
    }
}
