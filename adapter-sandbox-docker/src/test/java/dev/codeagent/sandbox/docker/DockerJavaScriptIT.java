package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 33, "every language on every tier": the image's node (the host's Debian nodejs, copied by
 * scripts/build-sandbox-image.sh) runs JavaScript on runc and on runsc, and the limits end a node program as they
 * end any other. Unlike the contract suites, which skip JavaScript where a tier lacks it, this fails when the image
 * does not declare it.
 */
@Tag("docker")
class DockerJavaScriptIT {

    abstract static class OnATier {

        DockerSandbox sandbox;

        abstract DockerSandbox start();

        /** How much later than the limit a kill may come: gVisor's ptrace platform is slower at everything. */
        abstract Duration slack();

        @BeforeAll
        void open() {
            DockerTestSupport.assumeDocker();
            sandbox = start();
        }

        @AfterAll
        void close() {
            if (sandbox != null) {
                sandbox.close();
                assertThat(DockerTestSupport.containersOf(sandbox.ownerId())).as("containers left behind").isEmpty();
            }
        }

        private Execution run(String source, String stdin, ResourceLimits limits) {
            return sandbox.execute(new ExecutionRequest(new Program(Language.JAVASCRIPT, source), stdin, List.of("a", "b"), limits));
        }

        @Test
        void theTierListsJavaScript() {
            assertThat(sandbox.languages()).as("the image's dev.codeagent.languages label (rebuild it with "
                    + "scripts/build-sandbox-image.sh on a host with nodejs)").contains(Language.JAVASCRIPT);
        }

        @Test
        void runsAProgramWithItsInputAndArguments() {
            Execution e = run("const lines = require('fs').readFileSync(0, 'utf8').trim().split('\\n').map(Number);\n"
                    + "console.log(lines.reduce((s, x) => s + x, 0), process.argv.slice(2).join(','), process.version);\n",
                    "3\n4\n", ResourceLimits.defaults());
            assertThat(e.outcome()).as(e.detail() + " " + e.stderr().text()).isEqualTo(Outcome.OK);
            assertThat(e.stdout().text()).startsWith("7 a,b v");
        }

        @Test
        void anUncaughtErrorIsARuntimeErrorWithItsMessage() {
            Execution e = run("function f() { throw new TypeError('boom'); }\nf();\n", "", ResourceLimits.defaults());
            assertThat(e.outcome()).as(e.detail()).isEqualTo(Outcome.RUNTIME_ERROR);
            assertThat(e.exitCode()).isEqualTo(1);
            assertThat(e.stderr().text()).contains("TypeError: boom");
        }

        /** A busy loop under 1 s of CPU and 20 s of wall time: the CPU limit ends it, and the report says so. */
        @Test
        void aBusyLoopEndsAtTheCpuLimitNamingIt() {
            ResourceLimits limits = ResourceLimits.defaults().withWallTime(Duration.ofSeconds(20)).withCpuTime(Duration.ofSeconds(1));
            Execution e = run("let x = 0;\nwhile (true) { x++; }\n", "", limits);
            assertThat(e.outcome()).as(e.detail()).isEqualTo(Outcome.TIME_LIMIT);
            assertThat(e.detail()).contains("CPU-time limit of 1s");
            assertThat(e.wallTime()).as("long before the 20 s wall").isLessThan(Duration.ofSeconds(3).plus(slack()));
        }

        /** V8's heap past 128 MiB: MEMORY_LIMIT, whichever of V8's own cap or the container's group stops it first. */
        @Test
        void aHeapPastTheMemoryLimitIsTheMemoryLimit() {
            Execution e = run("const a = [];\nwhile (true) { a.push(new Array(1 << 20).fill(a.length + 0.5)); }\n", "",
                    ResourceLimits.defaults().withMemoryBytes(128L << 20).withWallTime(Duration.ofSeconds(30)));
            assertThat(e.outcome()).as(e.detail() + " " + e.stderr().text()).isEqualTo(Outcome.MEMORY_LIMIT);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OnRunc extends OnATier {
        @Override
        DockerSandbox start() {
            return DockerTestSupport.sandbox(1, ResourceLimits.defaults());
        }

        @Override
        Duration slack() {
            return Duration.ofSeconds(1);
        }
    }

    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OnRunsc extends OnATier {
        @Override
        DockerSandbox start() {
            return DockerTestSupport.runscSandbox(1, ResourceLimits.defaults());
        }

        @Override
        Duration slack() {
            return Duration.ofSeconds(6);
        }
    }
}
