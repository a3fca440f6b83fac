package dev.codeagent.sandbox.docker;

import static org.assertj.core.api.Assertions.fail;

import com.github.dockerjava.api.model.Container;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * What the docker tests share: the engine check (skip without an engine on a developer machine, fail
 * under {@code CI=true}), the image (built with the project's script when missing), and a look at the
 * engine for containers this JVM left behind.
 */
final class DockerTestSupport {

    static final String IMAGE = System.getenv().getOrDefault("CODEAGENT_SANDBOX_IMAGE", "codeagent-sandbox:latest");

    private static volatile String unavailable;
    private static volatile boolean checked;

    private DockerTestSupport() {
    }

    /**
     * Skips the calling test without a usable engine and image; under {@code CI=true} fails it instead.
     * Waits while another build's engine-fault test has the engine down.
     */
    static synchronized void assumeDocker() {
        EngineLock.shared(Duration.ofMinutes(3));
        if (!checked) {
            unavailable = probe();
            checked = true;
        }
        if (unavailable != null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail("CI=true but the docker tier cannot be tested: " + unavailable);
            }
            Assumptions.abort("docker tests skipped: " + unavailable);
        }
    }

    private static String probe() {
        try (DockerEngine engine = engine()) {
            try {
                engine.ping();
            } catch (EngineFailure e) {
                return "no Docker engine is reachable at " + engine.host();
            }
            if (engine.imageLabels(IMAGE).isPresent()) {
                return null;
            }
            String built = buildImage();
            return engine.imageLabels(IMAGE).isPresent() ? null : "the image " + IMAGE + " is missing and could not be built: " + built;
        }
    }

    /** Runs scripts/build-sandbox-image.sh; returns what it said. */
    private static String buildImage() {
        Path root = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();
        Path script = root.resolve("scripts/build-sandbox-image.sh");
        if (!Files.isExecutable(script)) {
            return "no " + script;
        }
        try {
            Process p = new ProcessBuilder(script.toString(), IMAGE).redirectErrorStream(true).start();
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return "timed out";
            }
            return new String(p.getInputStream().readAllBytes()).trim();
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    static DockerEngine engine() {
        return new DockerEngine(null, Duration.ofSeconds(20), Duration.ofSeconds(1));
    }

    static DockerSandboxConfig config(int poolSize) {
        return new DockerSandboxConfig(null, IMAGE, poolSize, 1.0, ByteSize.ofMiB(64));
    }

    static DockerSandbox sandbox(int poolSize, ResourceLimits poolLimits) {
        return DockerSandbox.create(config(poolSize), poolLimits, IsolationMode.BEST_EFFORT);
    }

    /**
     * A sandbox on gVisor. Skips without runsc registered in the engine (fails under {@code CI=true}, where
     * .ci/run registers it).
     */
    static DockerSandbox runscSandbox(int poolSize, ResourceLimits poolLimits) {
        assumeDocker();
        try {
            return DockerSandbox.create(config(poolSize).withRuntime(DockerSandboxConfig.RUNSC), poolLimits,
                    IsolationMode.BEST_EFFORT);
        } catch (dev.codeagent.domain.execution.SandboxUnavailableException e) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail("CI=true but the runsc tier cannot be tested: " + e.getMessage());
            }
            Assumptions.abort("runsc tests skipped: " + e.getMessage());
            throw e;
        }
    }

    /** Containers carrying codeagent's label that this JVM made and nobody removed, as "id name status". */
    static List<String> leftovers() {
        try (DockerEngine engine = engine()) {
            List<Container> ours = engine.listByLabels(Map.of(DockerContainers.LABEL_SANDBOX, "true",
                    DockerContainers.LABEL_PROCESS, StrayContainers.processTag()));
            return ours.stream().map(c -> ContainerKeeper.shortId(c.getId()) + " " + c.getStatus()).collect(Collectors.toList());
        }
    }

    /** Containers of one sandbox instance. */
    static List<String> containersOf(String ownerId) {
        try (DockerEngine engine = engine()) {
            return engine.listByLabels(Map.of(DockerContainers.LABEL_OWNER, ownerId)).stream()
                    .map(Container::getId).collect(Collectors.toList());
        }
    }
}
