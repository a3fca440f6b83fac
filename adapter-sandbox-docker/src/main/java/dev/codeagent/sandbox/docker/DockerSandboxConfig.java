package dev.codeagent.sandbox.docker;

import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.spi.ConfigSection;
import java.util.Objects;

/**
 * Settings of the docker tier: config section {@code sandbox.docker}.
 *
 * @param host the engine's address, or null for {@code DOCKER_HOST} or the local socket
 * @param image the image code runs in
 * @param poolSize warm containers kept started; 0 disables the pool
 * @param cpus CPU quota of one container, in cores
 * @param tmpfsSize size cap of the container's writable work dir and /tmp
 * @param runtime the engine's OCI runtime for sandbox containers: {@code runc} (the default) or {@code runsc}
 *     (gVisor: the program talks to a user-space kernel, never to the host's)
 * @param reuse {@code batch} (the default): a batch's judged jobs (an evaluation's samples) run one after another in
 *     containers that clean up after each job (docs/security-model.md); {@code off}: a container per job, always
 * @param zygote {@code batch} (the default): each reusable container forks a judged job's judge and candidate from two
 *     warm interpreters it starts before any job (zygote.py beside the supervisor); {@code off}: each job starts both
 *     interpreters afresh. Only reusable containers have zygotes.
 */
public record DockerSandboxConfig(String host, String image, int poolSize, double cpus, ByteSize tmpfsSize, String runtime,
        String reuse, String zygote) {

    /** A batch's judged jobs share reusable containers. */
    public static final String REUSE_BATCH = "batch";
    /** Every job gets a container of its own. */
    public static final String REUSE_OFF = "off";
    /** Reusable containers fork a judged job's interpreters from warm ones. */
    public static final String ZYGOTE_BATCH = "batch";
    /** Every job starts its interpreters afresh. */
    public static final String ZYGOTE_OFF = "off";

    /** The engine's own runtime. */
    public static final String RUNC = "runc";
    /** gVisor's runtime, as registered in the engine's daemon.json. */
    public static final String RUNSC = "runsc";

    /** Where these settings live in the config. */
    public static final ConfigSection<DockerSandboxConfig> SECTION =
            new ConfigSection<>("sandbox.docker", DockerSandboxConfig.class, defaults());

    public DockerSandboxConfig {
        if (image == null || image.isBlank()) {
            throw new IllegalArgumentException("sandbox.docker.image must name an image");
        }
        if (poolSize < 0) {
            throw new IllegalArgumentException("sandbox.docker.poolSize must not be negative, was " + poolSize);
        }
        if (cpus <= 0) {
            throw new IllegalArgumentException("sandbox.docker.cpus must be positive, was " + cpus);
        }
        Objects.requireNonNull(tmpfsSize, "sandbox.docker.tmpfsSize");
        runtime = runtime == null || runtime.isBlank() ? RUNC : runtime.trim();
        if (!runtime.equals(RUNC) && !runtime.equals(RUNSC)) {
            throw new IllegalArgumentException("sandbox.docker.runtime must be runc or runsc, was " + runtime);
        }
        reuse = reuse == null || reuse.isBlank() ? REUSE_BATCH : reuse.trim();
        if (!reuse.equals(REUSE_BATCH) && !reuse.equals(REUSE_OFF)) {
            throw new IllegalArgumentException("sandbox.docker.reuse must be batch or off, was " + reuse);
        }
        zygote = zygote == null || zygote.isBlank() ? ZYGOTE_BATCH : zygote.trim();
        if (!zygote.equals(ZYGOTE_BATCH) && !zygote.equals(ZYGOTE_OFF)) {
            throw new IllegalArgumentException("sandbox.docker.zygote must be batch or off, was " + zygote);
        }
    }

    /** Settings with reused containers' zygotes as by default. */
    public DockerSandboxConfig(String host, String image, int poolSize, double cpus, ByteSize tmpfsSize, String runtime,
            String reuse) {
        this(host, image, poolSize, cpus, tmpfsSize, runtime, reuse, ZYGOTE_BATCH);
    }

    /** Settings with containers reused for batches, as by default. */
    public DockerSandboxConfig(String host, String image, int poolSize, double cpus, ByteSize tmpfsSize, String runtime) {
        this(host, image, poolSize, cpus, tmpfsSize, runtime, REUSE_BATCH);
    }

    /** Settings on the engine's own runtime, runc. */
    public DockerSandboxConfig(String host, String image, int poolSize, double cpus, ByteSize tmpfsSize) {
        this(host, image, poolSize, cpus, tmpfsSize, RUNC);
    }

    /** The same settings on another runtime. */
    public DockerSandboxConfig withRuntime(String runtime) {
        return new DockerSandboxConfig(host, image, poolSize, cpus, tmpfsSize, runtime, reuse, zygote);
    }

    /** Whether a batch's judged jobs share reusable containers. */
    public boolean reusesForBatches() {
        return REUSE_BATCH.equals(reuse);
    }

    /** Whether a reusable container forks its judged jobs' interpreters from warm ones. */
    public boolean zygotes() {
        return ZYGOTE_BATCH.equals(zygote);
    }

    /** Whether the program runs under gVisor. */
    public boolean gvisor() {
        return RUNSC.equals(runtime);
    }

    public static DockerSandboxConfig defaults() {
        return new DockerSandboxConfig(null, "codeagent-sandbox:latest", 2, 1.0, ByteSize.ofMiB(64));
    }
}
