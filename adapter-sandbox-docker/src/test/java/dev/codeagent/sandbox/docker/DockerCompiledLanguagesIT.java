package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.compile.CompiledLanguagesContractTest;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/** Compiled languages on the docker tier: the image's toolchains (scripts/build-sandbox-image.sh), a container per stage. */
@Tag("docker")
class DockerCompiledLanguagesIT extends CompiledLanguagesContractTest {

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
