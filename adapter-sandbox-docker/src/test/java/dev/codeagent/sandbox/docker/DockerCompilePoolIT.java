package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The compile pool: containers made for compile stages' limits are kept warm once a compile stage has asked for one,
 * so the next compile stage runs in a container started before it came (and a sandbox that never compiles holds none).
 */
@Tag("docker")
class DockerCompilePoolIT {

    private static Execution compileSized(DockerSandbox s) {
        // a compile stage is a Bash program run with the compile limits: the container's hostname is its short id
        return s.execute(new ExecutionRequest(new Program(Language.BASH, "echo \"$HOSTNAME\""), "",
                ResourceLimits.compileDefaults()));
    }

    @Test
    void aCompileStageAfterTheFirstTakesAWarmCompileSizedContainer() {
        DockerTestSupport.assumeDocker();
        try (DockerSandbox s = DockerSandbox.create(DockerTestSupport.config(2), ResourceLimits.defaults(),
                ResourceLimits.compileDefaults(), IsolationMode.BEST_EFFORT)) {
            assertThat(s.awaitSettled(Duration.ofSeconds(60))).isTrue();
            assertThat(DockerTestSupport.containersOf(s.ownerId())).as("no compile pool before a compile stage").hasSize(2);

            Execution first = compileSized(s);
            assertThat(first.outcome()).as(first.detail()).isEqualTo(Outcome.OK);
            assertThat(s.awaitSettled(Duration.ofSeconds(60))).isTrue();
            List<String> warm = new ArrayList<>(DockerTestSupport.containersOf(s.ownerId()));
            assertThat(warm).as("the run pool and one compile-sized container").hasSize(3);

            Execution second = compileSized(s);
            assertThat(second.outcome()).as(second.detail()).isEqualTo(Outcome.OK);
            String host = second.stdout().text().strip();
            assertThat(warm).as("the second ran in a container started before it came")
                    .anySatisfy(id -> assertThat(id).startsWith(host));
            assertThat(host).isNotEmpty();
        }
        assertThat(DockerTestSupport.leftovers()).isEmpty();
    }
}
