package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cold launches: the request runs in a sandbox started for it, supervised (the supervisor, or a zygote's fork, writes
 * its files into the sandbox's tmpfs) or, without the supervisor, with a work directory bound in from the host.
 */
final class ColdLaunches extends Launches {

    private static final Logger log = LoggerFactory.getLogger(ColdLaunches.class);

    ColdLaunches(Launches shared) {
        super(shared);
    }

    /** Runs the request in a sandbox started for it. */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation) {
        return cold(request, binary, isolation, null);
    }

    /**
     * Runs the request in a sandbox started for it; with {@code live}, its stdin stays open and its output also goes
     * to {@code live} as it comes (supervised runs only: the caller checks {@link #supervised()}).
     */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation, LiveChild live) {
        return cold(request, binary, isolation, live, null);
    }

    /** As {@link #cold(ExecutionRequest, Path, Isolation, LiveChild)}, the supervised run forked by {@code zygote} when one is given. */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation, LiveChild live, Zygote zygote) {
        long started = System.nanoTime();
        long uid = -1;
        WorkDir dir = null;
        Path rusage = null;
        ChildGroup group = null;
        Result result = new Result();
        try {
            uid = uids == null ? -1 : uids.acquire();
            group = newGroup(request.limits());
            if (supervisor != null) {
                // nothing on the host's disk: the supervisor (or the zygote's run) writes the files into the run's tmpfs
                run(startChild(request, plan.programArgv(binary, request), uid, group, List.of(), null, zygote, -1, isolation)
                        .live(live), result);
            } else {
                if (live != null) {
                    throw new IllegalStateException("a live run needs the in-sandbox supervisor");
                }
                dir = WorkDir.create(workRoot, request.program(), uid);
                if (plan.measures() && group == null) {
                    rusage = rusageFile(dir.path(), uid);
                }
                LaunchSpec spec = new LaunchSpec(uid, dir.path(), dir.files(), plan.programArgv(binary, request),
                        plan.environment(dir.path()), request.limits(),
                        LaunchPlan.addressSpaceLimit(request.program().language()), rusage, true, group, false);
                Launch launch = Launch.start(spec, plan.command(spec), threads);
                run(new Child(launch, request.stdin().getBytes(StandardCharsets.UTF_8), request, isolation, killer, group, 0,
                        null), result);
            }
        } catch (IOException | SandboxUnavailableException e) {
            log.warn("process sandbox could not prepare a run: {}", e.getMessage());
            result.execution = Execution.sandboxError("could not prepare the run: " + e.getMessage(),
                    Duration.ofNanos(System.nanoTime() - started), isolation);
        } finally {
            Reaper.remove(dir == null ? null : dir.path(), rusage);
            reaper.release(uid, result.clean);
            closeLater(group);
        }
        return result.finish();
    }

    private static Path rusageFile(Path dir, long uid) throws IOException {
        Path f = dir.resolveSibling(dir.getFileName() + ".rusage");
        Files.deleteIfExists(f);
        Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        if (uid >= 0) {
            Files.setAttribute(f, "unix:uid", (int) uid);
        }
        return f;
    }
}
