package dev.codeagent.application.config;

/**
 * Settings of the docker tier.
 *
 * @param host the engine's address, or null for {@code DOCKER_HOST} or the local socket
 * @param image the image code runs in
 * @param poolSize warm containers kept started; 0 disables the pool
 * @param cpus CPU quota of one container, in cores
 * @param tmpfsSize size cap of the container's writable work dir and /tmp
 */
public record DockerSandboxConfig(String host, String image, int poolSize, double cpus, ByteSize tmpfsSize) {

    public DockerSandboxConfig {
        if (poolSize < 0) {
            throw new IllegalArgumentException("sandbox.docker.poolSize must not be negative, was " + poolSize);
        }
        if (cpus <= 0) {
            throw new IllegalArgumentException("sandbox.docker.cpus must be positive, was " + cpus);
        }
    }

    public static DockerSandboxConfig defaults() {
        return new DockerSandboxConfig(null, "codeagent-sandbox:latest", 2, 1.0, ByteSize.ofMiB(64));
    }
}
