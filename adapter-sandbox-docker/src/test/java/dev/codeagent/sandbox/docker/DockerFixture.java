package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One variant of the docker tier (an OCI runtime of the engine), as the fixture of one suite: the sandbox is built
 * before the suite's first test and closed after its last, and then no container of this JVM may be left. A suite
 * declares it as {@code @RegisterExtension static final DockerFixture tier = DockerFixture.runc(2)}; each suite
 * gets a sandbox of its own, with the warm pool its tests need ({@link DockerRuncIT}, {@link DockerRunscIT}).
 *
 * <p>Skip and fail rules are {@link DockerTestSupport}'s: without an engine and image the suite is skipped, and
 * under runsc also without gVisor registered in the engine; under {@code CI=true} it fails instead.
 */
final class DockerFixture implements BeforeAllCallback, AfterAllCallback {

    /** The engine's runtime the variant's containers run on. */
    enum Runtime { RUNC, RUNSC }

    private final Runtime runtime;
    private final int poolSize;
    private final ResourceLimits poolLimits;
    private final boolean settled;
    private DockerSandbox sandbox;

    private DockerFixture(Runtime runtime, int poolSize, ResourceLimits poolLimits, boolean settled) {
        this.runtime = runtime;
        this.poolSize = poolSize;
        this.poolLimits = poolLimits;
        this.settled = settled;
    }

    /** The default runtime with a warm pool of {@code poolSize} containers for the default limits. */
    static DockerFixture runc(int poolSize) {
        return new DockerFixture(Runtime.RUNC, poolSize, ResourceLimits.defaults(), false);
    }

    /** gVisor (runsc) with a warm pool of {@code poolSize} containers for the default limits. */
    static DockerFixture runsc(int poolSize) {
        return new DockerFixture(Runtime.RUNSC, poolSize, ResourceLimits.defaults(), false);
    }

    /**
     * The same variant with its pool made for {@code limits}, and full before the first test: the attacks meet warm
     * containers, as requests do (a cold start on a loaded host is not what the wall-clock tests time: the limit
     * starts with the program; see DockerExecutions.START_UP).
     */
    DockerFixture warmFor(ResourceLimits limits) {
        return new DockerFixture(runtime, poolSize, limits, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        DockerTestSupport.assumeDocker();
        sandbox = runtime == Runtime.RUNSC
                ? DockerTestSupport.runscSandbox(poolSize, poolLimits)
                : DockerTestSupport.sandbox(poolSize, poolLimits);
        if (settled) {
            sandbox.awaitSettled(Duration.ofSeconds(60));
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (sandbox != null) {
            DockerSandbox s = sandbox;
            sandbox = null;
            s.close();
            assertThat(DockerTestSupport.leftovers()).as("containers left behind").isEmpty();
        }
    }

    DockerSandbox sandbox() {
        return sandbox;
    }
}
