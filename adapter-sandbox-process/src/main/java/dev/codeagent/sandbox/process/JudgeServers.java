package dev.codeagent.sandbox.process;

import static dev.codeagent.sandbox.process.JudgedLaunches.JUDGE_FLAGS;

import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.kit.sandbox.JudgeScripts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The judge servers: one long-lived sandbox per batch (two batches at most), which forks a judge for each of the
 * batch's jobs; and the one directory under which every server's channels are made.
 */
final class JudgeServers extends Launches {

    private static final Logger log = LoggerFactory.getLogger(JudgeServers.class);

    /** The limits of a judge server's sandbox: as long as the sandbox lives, room for a child per concurrent job. */
    static final ResourceLimits SERVER_LIMITS = new ResourceLimits(Duration.ofHours(1), Duration.ofHours(1),
            4096 * ResourceLimits.MIB, 64, ResourceLimits.MIB, 4 * ResourceLimits.MIB, false);
    /** Servers kept at once (a batch each); the oldest goes when another batch comes. */
    private static final int MAX_SERVERS = 2;
    private final Map<String, JudgeServer> servers = new LinkedHashMap<>();
    private Path channelsRoot;

    JudgeServers(Launches shared) {
        super(shared);
    }

    /** The lock the zygote is kept under too (as when both lived in one class): a zygote and a server start one at a time. */
    Object lock() {
        return servers;
    }

    /** The live judge server of {@code batch}, started when there is none; null when none can be started. */
    JudgeServer server(String batch, Path binary, Path scripts) {
        synchronized (servers) {
            if (closed()) {
                return null;
            }
            JudgeServer s = servers.get(batch);
            if (s != null && s.alive()) {
                return s;
            }
            if (s != null) {
                servers.remove(batch).close();
            }
            while (servers.size() >= MAX_SERVERS) {
                String oldest = servers.keySet().iterator().next();
                servers.remove(oldest).close();
            }
            s = startServer(binary, scripts);
            if (s != null) {
                servers.put(batch, s);
            }
            return s;
        }
    }

    private JudgeServer startServer(Path binary, Path scripts) {
        Path channels = null;
        try {
            channels = Files.createTempDirectory(channelsRoot(), "codeagent-judges-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            Files.setPosixFilePermissions(channels, PosixFilePermissions.fromString("rwx--x--x"));
            List<String> argv = new ArrayList<>();
            argv.add(binary.toString());
            argv.addAll(JUDGE_FLAGS);
            argv.add(JudgeChannel.script(scripts, JudgeScripts.SERVER));
            LongLived server = startLongLived(SERVER_LIMITS, true, argv, List.of(
                    new LaunchSpec.Bind(channels, JudgeChannel.SANDBOX_CHANNELS), new LaunchSpec.Bind(scripts, JudgeChannel.SANDBOX_LIB)),
                    channels, false);
            return new JudgeServer(server.process(), channels, server.uid(), threads, server.release());
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot start a judge server (judging each job alone): {}", e.getMessage());
            Reaper.remove(channels, null);
            return null;
        }
    }

    /**
     * Where every judge server's channel directories are made: one directory, so that a {@link Zygote} started
     * before a batch's server can see that server's channels (each fork then binds only its own).
     */
    Path channelsRoot() throws IOException {
        synchronized (servers) {
            if (channelsRoot == null) {
                Path dir = Files.createTempDirectory(channelsParent(), "codeagent-channels-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
                channelsRoot = dir;
            }
            return channelsRoot;
        }
    }

    /**
     * Where the channels' root goes: a tmpfs (/dev/shm) when the host has one, as FIFOs are made and removed by the
     * thousand in an evaluation (on ext4 each cost a third of a millisecond of inode allocation), else the work root.
     * Nothing is written to a FIFO's file system either way; the directory is root's and cannot be listed,
     * and each job's channel in it is open to that job's two uids alone ({@link JudgeChannel#handOver}).
     */
    private Path channelsParent() {
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type())) {
                return shm;
            }
        } catch (IOException e) {
            // the work root then
        }
        return workRoot;
    }

    /** Closes every server (the sandbox is closing). */
    void close() {
        synchronized (servers) {
            servers.values().forEach(JudgeServer::close);
            servers.clear();
        }
    }

    /** Removes the channels' root, once the servers and the zygote that could see it are gone. */
    void removeChannelsRoot() {
        synchronized (servers) {
            Reaper.remove(channelsRoot, null);
        }
    }
}
