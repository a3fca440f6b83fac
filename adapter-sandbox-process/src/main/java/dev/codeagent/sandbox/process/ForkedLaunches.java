package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forked launches: Python runs forked by a zygote (an interpreter with the common modules loaded, waiting in a
 * sandbox of its own), each fork then joining its own groups, uid and filter; the judged runs of a batch forked so
 * too, judged by the batch's server.
 */
final class ForkedLaunches extends Launches {

    private static final Logger log = LoggerFactory.getLogger(ForkedLaunches.class);

    private Zygote zygote;
    private int zygoteFailures;
    /** Starts after which no zygote is tried again: Python programs then start their own sandboxes. */
    private static final int ZYGOTE_TRIES = 3;
    /** A zygote's own sandbox: its interpreter and each fork until the fork has joined its own groups. */
    static final ResourceLimits ZYGOTE_LIMITS = new ResourceLimits(Duration.ofHours(1), Duration.ofHours(1),
            512 * ResourceLimits.MIB, 1024, ResourceLimits.MIB, 4 * ResourceLimits.MIB, false);

    private final ColdLaunches cold;
    private final JudgedLaunches judged;
    private final JudgeServers judgeServers;

    ForkedLaunches(Launches shared, ColdLaunches cold, JudgedLaunches judged, JudgeServers judgeServers) {
        super(shared);
        this.cold = cold;
        this.judged = judged;
        this.judgeServers = judgeServers;
    }

    /** Whether Python runs can be forked from a zygote here (bubblewrap, root, control groups, the filter). */
    boolean forks() {
        return supervisor != null && uids != null && groups != null && plan.zygotes();
    }

    /** Starts the zygote now rather than at the first program that needs it (mode {@code all}). */
    void prepareZygote(Path python, Path scripts) {
        zygote(python, scripts);
    }

    /** The live zygote, started when there is none; null when none can be had (runs then start their own sandbox). */
    private Zygote zygote(Path python, Path scripts) {
        synchronized (judgeServers.lock()) {
            if (closed() || zygoteFailures >= ZYGOTE_TRIES) {
                return null;
            }
            if (zygote != null && zygote.alive()) {
                return zygote;
            }
            if (zygote != null) {
                zygote.close();
                zygote = null;
            }
            zygote = startZygote(python, scripts);
            if (zygote == null) {
                zygoteFailures++;
            }
            return zygote;
        }
    }

    private Zygote startZygote(Path python, Path scripts) {
        Path dir = null;
        ChildGroup group = null;
        java.nio.channels.ServerSocketChannel door = null;
        try {
            dir = Files.createTempDirectory(workRoot, "codeagent-zygote-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path script = dir.resolve("zygote.py");
            try (var in = ForkedLaunches.class.getResourceAsStream("zygote.py")) {
                if (in == null) {
                    throw new IOException("zygote.py is missing from the classpath");
                }
                Files.write(script, in.readAllBytes());
            }
            Path doorDir = Files.createDirectory(dir.resolve("door"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            door = Zygote.door(doorDir.resolve("door"));
            group = newGroup(ZYGOTE_LIMITS);
            List<String> command = plan.zygoteCommand(group, python, dir, doorDir, judgeServers.channelsRoot(), scripts,
                    groups.parents(), Toolchains.interpreterArgs(Language.PYTHON, ZYGOTE_LIMITS));
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
            pb.environment().clear();
            pb.environment().putAll(plan.environment(dir));
            Process p = onStarter(pb::start);
            Path d = dir;
            ChildGroup g = group;
            Zygote z = new Zygote(p, door, threads, () -> {
                // the launcher is the zygote's reaper: killed alone, its bubblewraps would go to pid 1 unreaped
                killer.killAll(p, -1);
                if (g != null) {
                    g.close();
                }
                Reaper.remove(d, null);
            });
            if (!z.awaitReady(Duration.ofSeconds(15))) {
                log.warn("process sandbox: the zygote did not start (Python programs start their own sandboxes)");
                z.close();
                return null;
            }
            return z;
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot start a zygote (Python programs start their own sandboxes): {}", e.toString());
            if (door != null) {
                try {
                    door.close();
                } catch (IOException closing) {
                    // nothing more to do
                }
            }
            if (group != null) {
                group.close();
            }
            Reaper.remove(dir, null);
            return null;
        }
    }

    /**
     * Runs a Python request (judged ones of a batch with the batch's {@link JudgeServer}) in a fork of the zygote;
     * null when no zygote can be had, and the caller runs it the usual way.
     */
    Execution forked(ExecutionRequest request, Path binary, Isolation isolation, Path scripts) {
        JudgeServer server = null;
        if (request.judged()) {
            server = request.judging().batch() == null ? null : judgeServers.server(request.judging().batch(), binary, scripts);
            if (server == null) {
                return null;
            }
        }
        Zygote z = zygote(binary, scripts);
        if (z == null) {
            return null;
        }
        return server != null ? judged.judgedByServer(server, request, binary, isolation, scripts, z)
                : cold.cold(request, binary, isolation, null, z);
    }

    /** Closes the zygote (the sandbox is closing). */
    void close() {
        synchronized (judgeServers.lock()) {
            if (zygote != null) {
                zygote.close();
                zygote = null;
            }
        }
    }
}
