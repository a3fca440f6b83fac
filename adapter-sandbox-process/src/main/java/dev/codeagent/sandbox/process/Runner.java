package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs executions: prepares a run (uid, work directory, measurement file), launches it through the
 * {@link LaunchPlan} (cold) or hands it to a pre-started sandbox (warm), and has its {@link Run} wait for the
 * program; then removes what the run left and gives its uid back. The single place that waits for a program.
 */
final class Runner {

    private static final Logger log = LoggerFactory.getLogger(Runner.class);

    private final LaunchPlan plan;
    private final UidPool uids;
    private final Reaper reaper;
    private final Killer killer;
    private final ExecutorService threads;
    private final Path workRoot;
    private final Set<Run> active = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    Runner(LaunchPlan plan, UidPool uids, Reaper reaper, Killer killer, ExecutorService threads, Path workRoot) {
        this.plan = plan;
        this.uids = uids;
        this.reaper = reaper;
        this.killer = killer;
        this.threads = threads;
        this.workRoot = workRoot;
    }

    /** How many runs are in flight. */
    int active() {
        return active.size();
    }

    /** Runs the request in a sandbox started for it. */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation) {
        long started = System.nanoTime();
        long uid = -1;
        WorkDir dir = null;
        Path rusage = null;
        Result result = new Result();
        try {
            uid = uids == null ? -1 : uids.acquire();
            dir = WorkDir.create(workRoot, request.program(), uid);
            if (plan.measures()) {
                rusage = rusageFile(dir.path(), uid);
            }
            RunSpec spec = new RunSpec(uid, dir.path(), dir.files(), plan.programArgv(binary, request),
                    plan.environment(dir.path()), request.limits(),
                    LaunchPlan.addressSpaceLimit(request.program().language()), rusage, true);
            Launch launch = Launch.start(spec, plan.command(spec), threads);
            run(new Run(launch, request.stdin().getBytes(StandardCharsets.UTF_8), request, isolation, killer), result);
        } catch (IOException | SandboxUnavailableException e) {
            log.warn("process sandbox could not prepare a run: {}", e.getMessage());
            result.execution = Execution.sandboxError("could not prepare the run: " + e.getMessage(),
                    Duration.ofNanos(System.nanoTime() - started), isolation);
        } finally {
            Reaper.remove(dir == null ? null : dir.path(), rusage);
            reaper.release(uid, result.clean);
        }
        return result.finish();
    }

    /** Runs the request in a pre-started sandbox: its bootstrap gets the job, then the program's stdin. */
    Execution warm(WarmPool.Warm pre, ExecutionRequest request, Path binary, Isolation isolation) {
        Result result = new Result();
        try {
            Map<String, String> files = new LinkedHashMap<>();
            files.put(request.program().mainFileName(), request.program().source());
            files.putAll(request.program().files());
            byte[] job = WarmPool.job(plan.programArgv(binary, request), plan.environment(null), files,
                    LaunchPlan.rlimits(request.limits(), LaunchPlan.addressSpaceLimit(request.program().language())), request);
            run(new Run(pre.launch(), job, request, isolation, killer), result);
        } finally {
            reaper.release(pre.uid(), result.clean);
            // holds only the measurement file, already read: the program's files died with its tmpfs
            removeLater(pre.dir());
        }
        return result.finish();
    }

    /**
     * A run that looks as if a wrapper (bwrap, setpriv, prlimit, GNU time, the bootstrap) failed before the
     * program started is told so only by its stderr and exit status, which the program controls: hostile code
     * could print "bwrap: ..." and exit 1 to be reported as a sandbox failure, which callers retry, running
     * it again. So such a verdict stands only when the sandbox really is broken now: a probe run through the
     * same wrapping must fail, or the interpreter be gone. Otherwise the failure is the program's.
     */
    Execution confirmWrapperFailure(Execution e, Path binary) {
        if (e == null || e.outcome() != Outcome.SANDBOX_ERROR || e.detail() == null
                || !e.detail().startsWith(WrapperFailure.DETAIL) || closed) {
            return e;
        }
        long uid = -1;
        IsolationProbe.Result probe;
        try {
            uid = uids == null ? -1 : uids.acquire();
            probe = IsolationProbe.run(plan, uid, workRoot);
        } catch (SandboxUnavailableException unavailable) {
            return e;
        } finally {
            if (uid >= 0) {
                reaper.release(uid, Reaper.sweepUid(uid, Duration.ofSeconds(1)));
            }
        }
        if (!probe.ok() || !Files.isExecutable(binary)) {
            return e;
        }
        log.info("process sandbox: a run's stderr looked like a sandbox failure, but a probe runs fine: "
                + "reporting it as the program's error");
        String status = e.exitCode() != null ? "exited with status " + e.exitCode() : "killed by signal " + e.signal();
        return new Execution(Outcome.RUNTIME_ERROR, e.exitCode(), e.signal(), e.stdout(), e.stderr(), e.wallTime(),
                e.cpuTime(), e.peakMemoryBytes(), status + " (its stderr reads like a sandbox failure, but the sandbox works)",
                e.isolation());
    }

    /** Pre-starts one sandbox with its bootstrap waiting for a job; null once closed. */
    WarmPool.Warm startWarm(long memoryBytes, Path python, Path warmRoot) {
        if (closed) {
            return null;
        }
        long uid = uids == null ? -1 : uids.acquire();
        Path dir = null;
        try {
            dir = WarmPool.rusageDir(warmRoot, uid);
            Path rusage = plan.measures() ? rusageFile(dir.resolve("run"), uid) : null;
            Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8");
            RunSpec spec = new RunSpec(uid, dir, List.of(), LaunchPlan.bootstrapArgv(python), env,
                    ResourceLimits.defaults().withMemoryBytes(memoryBytes), true, rusage, false);
            return new WarmPool.Warm(Launch.start(spec, plan.command(spec), threads), uid, dir, rusage, memoryBytes);
        } catch (IOException | RuntimeException e) {
            Reaper.remove(dir, null);
            reaper.release(uid, true);
            throw new SandboxUnavailableException("could not pre-start a sandbox: " + e.getMessage(), e);
        }
    }

    /** Kills a pre-started sandbox that will not run anything, and releases what it held. */
    void discardWarm(WarmPool.Warm w) {
        Process p;
        try {
            p = w.launch().process.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p = w.launch().process.getNow(null);
        } catch (ExecutionException | TimeoutException e) {
            p = null;
        }
        boolean clean = killer.killAll(p, w.uid());
        w.launch().streams.abandon();
        Reaper.remove(w.dir(), null);
        reaper.release(w.uid(), clean);
    }

    /** From now on a run that fails is one the closing ended; nothing new is pre-started. */
    void closing() {
        closed = true;
    }

    /** Ends the runs in flight (they report a cancellation) and waits, briefly, for them to be cleaned up. */
    void close() {
        closed = true;
        for (Run r : active) {
            r.cancelFromClose();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!active.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
    }

    private void removeLater(Path dir) {
        try {
            threads.execute(() -> Reaper.remove(dir, null));
        } catch (RejectedExecutionException closing) {
            Reaper.remove(dir, null);
        }
    }

    /** What one run came to, carried out of the clean-up. */
    private static final class Result {
        Execution execution;
        boolean clean = true;
        boolean cancelled;
        boolean closedDuringRun;

        Execution finish() {
            if (closedDuringRun) {
                // the owner closed the sandbox (shutdown): the run was cancelled, not failed
                throw new ExecutionCancelledException("execution cancelled: the sandbox was closed while the program ran");
            }
            if (cancelled) {
                // only now, after the clean-up, so that no clean-up step trips over the flag
                Thread.currentThread().interrupt();
                throw new ExecutionCancelledException("execution cancelled: the program was killed and its files removed");
            }
            return execution;
        }
    }

    private void run(Run run, Result result) {
        active.add(run);
        try {
            result.execution = run.execute();
            result.cancelled = run.cancelled();
            result.closedDuringRun = closed && result.execution != null
                    && result.execution.outcome() == Outcome.SANDBOX_ERROR;
        } finally {
            result.clean = run.clean();
            active.remove(run);
        }
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
