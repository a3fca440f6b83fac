package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.sandbox.JudgedSandboxContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** The judged-execution contract on the docker tier (runc, with its warm pool): candidate and judge as two uids under a root pid 1. */
@Tag("docker")
class DockerJudgedContractIT extends JudgedSandboxContractTest {

    private static DockerSandbox sandbox;

    @BeforeAll
    static void start() {
        DockerTestSupport.assumeDocker();
        sandbox = DockerTestSupport.sandbox(2, ResourceLimits.defaults());
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
