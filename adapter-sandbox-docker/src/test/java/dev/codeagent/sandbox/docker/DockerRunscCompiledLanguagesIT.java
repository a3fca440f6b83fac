package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Compiled languages on the docker tier under gVisor (runsc): both stages inside gVisor's kernel. */
@Tag("docker")
class DockerRunscCompiledLanguagesIT extends CompiledLanguagesContractTest {

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

    /** gVisor's ptrace platform makes every fork and exec slow: a kill and its clean-up take longer too. */
    @Override
    protected Duration slack() {
        return Duration.ofSeconds(6);
    }

    @Override
    protected java.util.List<?> survivors(String marker) {
        return GvisorProcesses.leftAfter(sandbox.ownerId(), Duration.ZERO);
    }

    @Override
    protected Sandbox sandbox() {
        return sandbox;
    }
}
