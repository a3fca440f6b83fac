package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The threat table's attacks against the docker tier, each checked from the host; the pool is made
 * for the attacks' limits so that pooled containers face them too. Afterwards no container is left.
 */
@Tag("docker")
class DockerSandboxAttackIT extends SandboxAttackTest {

    private static DockerSandbox sandbox;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        sandbox = DockerTestSupport.sandbox(2, ResourceLimits.defaults()
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

    @Override
    protected Sandbox sandbox() {
        return sandbox;
    }
}
