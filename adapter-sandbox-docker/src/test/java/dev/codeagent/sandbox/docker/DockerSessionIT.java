package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.session.SessionSandboxContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sessions on the docker tier (runc): the kernel bridge as the init of a container of its own (uid 65534, no
 * capabilities, no network, the tier's seccomp profile), held to the session contract; the sandbox image carries
 * the kernel and matplotlib (scripts/build-sandbox-image.sh on a host with them, as .ci/run does).
 */
@Tag("docker")
class DockerSessionIT extends SessionSandboxContractTest {

    private static DockerSandbox sandbox;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        sandbox = DockerTestSupport.sandbox(0, ResourceLimits.defaults());
    }

    @AfterAll
    static void stopAndLeaveNothingBehind() {
        if (sandbox != null) {
            sandbox.close();
            assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
        }
    }

    @Override
    protected SessionSandbox sessions() {
        return sandbox;
    }

    @Test
    void aSessionsContainerIsRemovedWhenItClosesAndTheSandboxClosesTheOnesStillOpen() {
        Session closed = sandbox.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(30)));
        closed.execute(new Cell("x = 1"));
        closed.close();
        assertThat(DockerTestSupport.containersOf(sandbox.ownerId())).as("a closed session's container").isEmpty();

        DockerSandbox own = DockerTestSupport.sandbox(0, ResourceLimits.defaults());
        Session open = own.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(30)));
        own.close();
        assertThatThrownBy(() -> open.execute(new Cell("1"))).isInstanceOf(dev.codeagent.domain.session.SessionEndedException.class);
        assertThat(open.endReason()).isPresent();
        assertThat(DockerTestSupport.containersOf(own.ownerId())).as("the sessions of a closed sandbox").isEmpty();
        assertThatThrownBy(() -> own.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(30))))
                .isInstanceOf(SandboxUnavailableException.class).hasMessageContaining("closed");
    }
}
