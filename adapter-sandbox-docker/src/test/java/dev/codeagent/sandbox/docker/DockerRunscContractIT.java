package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The sandbox contract, held by the docker tier on gVisor (runsc) with its warm pool: the whole suite. */
@Tag("docker")
class DockerRunscContractIT extends SandboxContractTest {

    private static DockerSandbox sandbox;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        sandbox = DockerTestSupport.runscSandbox(2, ResourceLimits.defaults());
    }

    @AfterAll
    static void stopAndLeaveNothingBehind() {
        if (sandbox != null) {
            sandbox.close();
            assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
        }
    }

    /**
     * The program's processes live in gVisor's kernel, not in the host's /proc: gVisor's own process list says
     * whether anything besides the supervisor (its pid 1) runs in one of this sandbox's containers.
     */
    @Override
    protected boolean programRunning(String marker) throws Exception {
        return !GvisorProcesses.beyondInit(sandbox.ownerId()).isEmpty();
    }

    @Override
    protected java.util.List<?> survivors(String marker) {
        return GvisorProcesses.leftAfter(sandbox.ownerId(), survivorGrace());
    }

    @Override
    protected Sandbox sandbox() {
        return sandbox;
    }
}
