package dev.codeagent.sandbox.docker;

import static dev.codeagent.sandbox.docker.DockerSandbox.LABEL_SANDBOX;

import com.github.dockerjava.api.model.Container;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stray containers: every container codeagent makes carries the {@code dev.codeagent.process} label naming the
 * process that made it (host, pid, start time); those whose process on this host is gone are removed at start-up.
 */
final class StrayContainers {

    private static final Logger log = LoggerFactory.getLogger(StrayContainers.class);

    private final DockerEngine engine;

    StrayContainers(DockerEngine engine) {
        this.engine = engine;
    }

    /** Removes containers left by an earlier codeagent process on this host that is no longer alive. */
    void removeStrays() {
        List<Container> ours;
        try {
            ours = engine.listByLabels(Map.of(LABEL_SANDBOX, "true"));
        } catch (EngineFailure e) {
            log.warn("cannot look for stray sandbox containers: {}", e.getMessage());
            return;
        }
        String host = hostName();
        int removed = 0;
        for (Container c : ours) {
            String tag = c.getLabels() == null ? null : c.getLabels().get(DockerContainers.LABEL_PROCESS);
            if (tag == null || !isStray(tag, host)) {
                continue;
            }
            try {
                engine.remove(c.getId());
                removed++;
            } catch (EngineFailure e) {
                log.warn("cannot remove stray sandbox container {}: {}", ContainerKeeper.shortId(c.getId()), e.getMessage());
            }
        }
        if (removed > 0) {
            log.info("removed {} stray sandbox container(s) left by an earlier run", removed);
        }
    }

    /** A container is a stray when the process that made it, on this host, is gone (or its pid was reused). */
    static boolean isStray(String processTag, String thisHost) {
        String[] parts = processTag.split("\\|");
        if (parts.length != 3 || !parts[0].equals(thisHost)) {
            return false;
        }
        long pid;
        try {
            pid = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return true;
        }
        String started = p.get().info().startInstant().map(i -> Long.toString(i.toEpochMilli())).orElse("");
        return !started.isEmpty() && !started.equals(parts[2]);
    }

    /** host|pid|start-millis of this JVM, the value of {@code dev.codeagent.process} on its containers. */
    static String processTag() {
        return ProcessTag.VALUE;
    }

    private static final class ProcessTag {
        static final String VALUE = compute();

        private static String compute() {
            ProcessHandle self = ProcessHandle.current();
            String started = self.info().startInstant().map(Instant::toEpochMilli).map(String::valueOf).orElse("");
            return hostName() + "|" + self.pid() + "|" + started;
        }
    }

    /** The kernel's host name; no DNS look-up, which can stall on a badly configured host. */
    private static String hostName() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc hidden: ask the JDK instead
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
        }
    }
}
