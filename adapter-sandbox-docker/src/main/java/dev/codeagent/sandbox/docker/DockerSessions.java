package dev.codeagent.sandbox.docker;

import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.kit.sandbox.BridgeSession;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The docker tier's sessions: each a container of its own with the kernel bridge as its init, its CPU budget read
 * from the container's group; closing a session (or the tier) removes its container.
 */
final class DockerSessions {

    private static final Logger log = LoggerFactory.getLogger(DockerSessions.class);
    private static final java.security.SecureRandom SESSION_IDS = new java.security.SecureRandom();

    private final DockerEngine engine;
    private final String image;
    private final double cpus;
    private final Map<String, String> labels;
    private final String runtime;
    private final boolean seccomp;
    /** Whether the image has a session kernel (label {@value DockerSandbox#LABEL_KERNEL} is ipykernel; see build-sandbox-image.sh). */
    private final boolean kernel;
    private final Set<DockerSessionChannel> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();

    DockerSessions(DockerEngine engine, String image, double cpus, Map<String, String> labels, String runtime, boolean seccomp,
            boolean kernel) {
        this.engine = engine;
        this.image = image;
        this.cpus = cpus;
        this.labels = labels;
        this.runtime = runtime;
        this.seccomp = seccomp;
        this.kernel = kernel;
    }

    /**
     * Opens a session in a container of its own: the kernel bridge is its init, as uid 65534 with no capability,
     * no network, a read-only root and size-capped tmpfs /work and /tmp, under the tier's seccomp profile (and
     * gVisor when configured); the container's memory, process and CPU limits are the session's for its whole
     * life, its CPU budget read from the container's group. Closing the session removes the container.
     *
     * @throws SandboxUnavailableException when the image has no kernel (built without ipykernel), the engine
     *     fails, or the kernel does not start
     */
    Session open(SessionLimits limits) {
        if (!kernel) {
            throw new SandboxUnavailableException("the sandbox image " + image + " has no kernel for sessions; rebuild it "
                    + "with scripts/build-sandbox-image.sh on a host with python3-ipykernel and python3-jupyter-client");
        }
        DockerContainers.Spec spec = new DockerContainers.Spec(image, limits.memoryBytes(), limits.maxProcesses(), cpus,
                limits.diskBytes(), labels, DockerContainers.DEFAULT_IDLE, null, true).on(runtime, seccomp);
        String id;
        try {
            id = engine.createSession(spec, List.of("/usr/bin/python3", "-I", "-c", BridgeSession.script()));
        } catch (EngineFailure e) {
            throw new SandboxUnavailableException("could not create a session's container: " + e.getMessage(), e);
        }
        String container = id;
        DockerSessionChannel[] self = new DockerSessionChannel[1];
        DockerSessionChannel channel = new DockerSessionChannel(() -> {
            sessions.remove(self[0]);
            try {
                engine.remove(container);
            } catch (RuntimeException e) {
                log.warn("docker sandbox: could not remove session container {}: {}", container, e.getMessage());
            }
        });
        self[0] = channel;
        sessions.add(channel);
        try {
            // attached before it starts: nothing the bridge says is missed
            engine.attach(id, channel.containerStdin(), channel);
            engine.start(id);
        } catch (RuntimeException e) {
            channel.destroy();
            throw new SandboxUnavailableException("could not start a session's container: " + e.getMessage(), e);
        }
        watchCpu(channel, GroupCpu.of(id, engine), limits);
        byte[] sid = new byte[16];
        SESSION_IDS.nextBytes(sid);
        // a kernel that does not start destroys the channel, and with it the container
        return BridgeSession.start("s-" + java.util.HexFormat.of().formatHex(sid), limits, channel);
    }

    /** The session's CPU budget over every process it ever ran: the container's group, polled. */
    private static void watchCpu(DockerSessionChannel channel, GroupCpu meter, SessionLimits limits) {
        long budget = limits.cpuBudget().toNanos();
        Thread t = new Thread(() -> {
            while (!channel.destroyed()) {
                long used = meter.nanos();
                if (used > budget) {
                    channel.ended("the session used its CPU budget of " + limits.cpuBudget().toSeconds() + "s");
                    return;
                }
                try {
                    Thread.sleep(Math.max(100, meter.poll().toMillis()));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "docker-session-cpu");
        t.setDaemon(true);
        t.start();
    }

    /** Destroys every open session, and with it its container. */
    void close() {
        for (DockerSessionChannel s : List.copyOf(sessions)) {
            s.destroy();
        }
        sessions.clear();
    }
}
