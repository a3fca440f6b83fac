package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.application.sandbox.SandboxAttackTest;
import dev.codeagent.application.sandbox.SandboxContractTest;
import dev.codeagent.application.sandbox.SandboxMemoryVerdictTest;
import dev.codeagent.application.session.SessionSandboxContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The docker tier on the engine's default runtime (runc). Each suite has a sandbox of its own
 * ({@link DockerFixture}); afterwards no container is left.
 */
@Tag("docker")
class DockerRuncIT {

    /** The sandbox contract, with the warm pool. */
    @Nested
    class Contract extends SandboxContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(2);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** The judged-execution contract: candidate and judge as two uids under a root pid 1. */
    @Nested
    class Judged extends JudgedSandboxContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(2);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** Compiled languages: the image's toolchains (scripts/build-sandbox-image.sh), a container per stage. */
    @Nested
    class CompiledLanguages extends CompiledLanguagesContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(2);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /**
     * Sessions: the kernel bridge as the init of a container of its own (uid 65534, no capabilities, no network,
     * the tier's seccomp profile), held to the session contract; the sandbox image carries the kernel and matplotlib
     * (scripts/build-sandbox-image.sh on a host with them, as .ci/run does). No pool: a closed session's container
     * must be the last of its sandbox.
     */
    @Nested
    class Session extends SessionSandboxContractTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(0);

        @Override
        protected SessionSandbox sessions() {
            return tier.sandbox();
        }

        @Test
        void aSessionsContainerIsRemovedWhenItClosesAndTheSandboxClosesTheOnesStillOpen() {
            DockerSandbox sandbox = tier.sandbox();
            dev.codeagent.domain.session.Session closed = sandbox.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(30)));
            closed.execute(new Cell("x = 1"));
            closed.close();
            assertThat(DockerTestSupport.containersOf(sandbox.ownerId())).as("a closed session's container").isEmpty();

            DockerSandbox own = DockerTestSupport.sandbox(0, ResourceLimits.defaults());
            dev.codeagent.domain.session.Session open = own.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(30)));
            own.close();
            assertThatThrownBy(() -> open.execute(new Cell("1"))).isInstanceOf(SessionEndedException.class);
            assertThat(open.endReason()).isPresent();
            assertThat(DockerTestSupport.containersOf(own.ownerId())).as("the sessions of a closed sandbox").isEmpty();
            assertThatThrownBy(() -> own.open(limits(256 * SessionLimits.MIB, Duration.ofSeconds(30))))
                    .isInstanceOf(SandboxUnavailableException.class).hasMessageContaining("closed");
        }
    }

    /**
     * The threat table's attacks, each checked from the host; the pool is made for the attacks' limits so that
     * pooled containers face them too.
     */
    @Nested
    class Attack extends SandboxAttackTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(2)
                .warmFor(ResourceLimits.defaults().withMemoryBytes(128 * ResourceLimits.MIB).withMaxProcesses(32));

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }

    /** The verdict a contest user expects of a program that touches 1 GiB under 256 MiB, in every language. */
    @Nested
    class MemoryVerdict extends SandboxMemoryVerdictTest {

        @RegisterExtension
        static final DockerFixture tier = DockerFixture.runc(2);

        @Override
        protected Sandbox sandbox() {
            return tier.sandbox();
        }
    }
}
