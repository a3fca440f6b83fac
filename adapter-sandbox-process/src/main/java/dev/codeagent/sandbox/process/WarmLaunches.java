package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm launches: the request runs in a sandbox pre-started by the {@link WarmPool}, its supervisor waiting for a job.
 */
final class WarmLaunches extends Launches {

    private static final Logger log = LoggerFactory.getLogger(WarmLaunches.class);

    WarmLaunches(Launches shared) {
        super(shared);
    }

    /**
     * Runs the request in a pre-started sandbox: its supervisor gets the job, then the program's stdin. Its
     * group, made and joined at pre-start, is set to the request's limits first (a few cgroupfs writes); null
     * when it cannot be (the sandbox is discarded and the caller runs the request cold).
     */
    Execution warm(WarmPool.Warm pre, ExecutionRequest request, Path binary, Isolation isolation) {
        long cpuBase = 0;
        if (pre.group() != null) {
            try {
                ResourceLimits l = request.limits();
                pre.group().limit(l.memoryBytes() + infraMemory(), l.maxProcesses() + INFRA_PROCESSES);
                pre.group().resetPeak();
                // what the supervisor used before the job is not the program's
                cpuBase = pre.group().cpuNanos();
            } catch (IOException | RuntimeException e) {
                log.debug("process sandbox: cannot retarget a pre-started sandbox's group: {}", e.toString());
                discardWarm(pre);
                return null;
            }
        }
        Result result = new Result();
        try {
            String nonce = nonce();
            run(new Child(pre.launch(), job(request, plan.programArgv(binary, request), nonce), request, isolation, killer,
                    pre.group(), cpuBase, nonce),
                    result);
        } finally {
            reaper.release(pre.uid(), result.clean);
            closeLater(pre.group());
        }
        return result.finish();
    }

    /** Pre-starts one sandbox with its supervisor waiting for a job, in a group of its own; null once closed. */
    WarmPool.Warm startWarm(long memoryBytes) {
        if (closed() || supervisor == null) {
            return null;
        }
        long uid = uids == null ? -1 : uids.acquire();
        ChildGroup group = null;
        try {
            ResourceLimits limits = ResourceLimits.defaults().withMemoryBytes(memoryBytes);
            group = newGroup(limits);
            LaunchSpec spec = supervisorSpec(uid, limits, group);
            return new WarmPool.Warm(Launch.start(spec, plan.command(spec), threads), uid, group, memoryBytes);
        } catch (IOException | RuntimeException e) {
            if (group != null) {
                group.close();
            }
            reaper.release(uid, true);
            throw new SandboxUnavailableException("could not pre-start a sandbox: " + e.getMessage(), e);
        }
    }

    /** Kills a pre-started sandbox that will not run anything, and releases what it held. */
    void discardWarm(WarmPool.Warm w) {
        // the discard runs to its end (its waits are bounded) and gives the uid back whatever fails: a discard cut
        // short by an interrupt kept the uid locked for the JVM's life; the interrupt is kept for the caller
        boolean interrupted = Thread.interrupted();
        boolean clean = false;
        try {
            Process p;
            try {
                p = w.launch().process.get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
                p = w.launch().process.getNow(null);
            } catch (ExecutionException | TimeoutException e) {
                p = null;
            }
            clean = w.group() == null || w.group().killAll();
            clean = killer.killAll(p, w.uid()) && clean;
            w.launch().streams.abandon();
            if (w.group() != null) {
                w.group().close();
            }
        } finally {
            reaper.release(w.uid(), clean);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
