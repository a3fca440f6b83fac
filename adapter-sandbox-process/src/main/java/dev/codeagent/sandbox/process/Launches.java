package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every kind of launch shares: the {@link LaunchPlan}, the uid pool and its reaper, the killer, the threads, the
 * work root, the control groups and the supervisor; the runs in flight; and the steps launches are made of (a group,
 * a nonce, the supervisor's job, a supervised run started, a long-lived sandbox started, the wait for a run and the
 * clean-up after it). Each kind of launch ({@link ColdLaunches}, {@link JudgedLaunches}, {@link ForkedLaunches},
 * {@link WarmLaunches}, {@link SessionLaunches}, and the {@link JudgeServers}) extends it, made from the one instance
 * {@link Launcher} composes them over, so that they share its state.
 */
class Launches {

    private static final Logger log = LoggerFactory.getLogger(Launches.class);

    final LaunchPlan plan;
    final UidPool uids;
    final Reaper reaper;
    final Killer killer;
    final ExecutorService threads;
    final Path workRoot;
    final ChildGroups groups;
    final Supervisor supervisor;
    final Set<Child> active;
    final java.security.SecureRandom random;
    private final java.util.concurrent.atomic.AtomicBoolean closed;
    /** Runs judged by a batch's judge server, and runs forked from a zygote: see {@link ProcessDiagnostics}. */
    final java.util.concurrent.atomic.AtomicLong batchJudged;
    final java.util.concurrent.atomic.AtomicLong forked;
    /**
     * The one thread that starts every process meant to outlive the request that asked for it (a zygote, a
     * session's bridge; not a batch's judge server, which is meant to end with its evaluation: forgetting an
     * evaluation ends its threads, and so its server, which {@code EvaluationAttacksIT} checks). Bubblewrap's
     * {@code --die-with-parent} is {@code PR_SET_PDEATHSIG}, which the kernel fires when the <em>thread</em> that
     * started the process ends, not the JVM: started from an evaluation's worker or an HTTP request's pooled thread,
     * a kept process was killed with that thread (the zygote died at the end of every evaluation). This thread lives
     * as long as the sandbox. (A {@link Launch}'s process is started by the pooled thread that then waits for it,
     * which lives exactly as long.)
     */
    private final ExecutorService starter;
    /** The {@link #starter}'s thread (the executor makes a new one if it ever dies): who may start in place. */
    private final java.util.concurrent.atomic.AtomicReference<Thread> starterThread;

    /** Processes of a run that are not the program's: the launcher-turned-bubblewrap and the supervisor (pid 1). */
    static final int INFRA_PROCESSES = 2;

    /**
     * @param groups where each run's control group is made, or null where cgroups cannot be had
     * @param supervisor the in-sandbox supervisor ({@link Supervisor}) that runs as the
     *     sandbox's pid 1, or null (no bubblewrap, or no Python): runs then have their files bound in
     *     read-only from the host and their exit status is bubblewrap's
     */
    Launches(LaunchPlan plan, UidPool uids, Reaper reaper, Killer killer, ExecutorService threads, Path workRoot,
            ChildGroups groups, Supervisor supervisor) {
        this.plan = plan;
        this.uids = uids;
        this.reaper = reaper;
        this.killer = killer;
        this.threads = threads;
        this.workRoot = workRoot;
        this.groups = groups;
        this.supervisor = plan.mode() == Mode.BWRAP ? supervisor : null;
        this.active = ConcurrentHashMap.newKeySet();
        this.random = new java.security.SecureRandom();
        this.closed = new java.util.concurrent.atomic.AtomicBoolean();
        this.batchJudged = new java.util.concurrent.atomic.AtomicLong();
        this.forked = new java.util.concurrent.atomic.AtomicLong();
        this.starterThread = new java.util.concurrent.atomic.AtomicReference<>();
        this.starter = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "process-sandbox-starter");
            t.setDaemon(true);
            starterThread.set(t);
            return t;
        });
    }

    /** Another kind of launch over the same state. */
    Launches(Launches shared) {
        this.plan = shared.plan;
        this.uids = shared.uids;
        this.reaper = shared.reaper;
        this.killer = shared.killer;
        this.threads = shared.threads;
        this.workRoot = shared.workRoot;
        this.groups = shared.groups;
        this.supervisor = shared.supervisor;
        this.active = shared.active;
        this.random = shared.random;
        this.closed = shared.closed;
        this.batchJudged = shared.batchJudged;
        this.forked = shared.forked;
        this.starter = shared.starter;
        this.starterThread = shared.starterThread;
    }

    /** Runs {@code task} (which starts a kept process) on the {@link #starter} thread and returns what it returns. */
    final <T> T onStarter(java.util.concurrent.Callable<T> task) throws IOException {
        // by identity, not by name: another sandbox's starter is named alike, and what it starts dies with it
        if (Thread.currentThread() == starterThread.get()) {
            return call(task);
        }
        java.util.concurrent.Future<T> f;
        try {
            f = starter.submit(() -> call(task));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new IOException("the sandbox is closing");
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while a process started");
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException rt) {
                throw rt;
            }
            throw new IOException(cause);
        }
    }

    private static <T> T call(java.util.concurrent.Callable<T> task) throws IOException {
        try {
            return task.call();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** Stops the starter thread (the sandbox is closed: nothing more is started). */
    final void stopStarter() {
        starter.shutdown();
    }

    /** Whether the sandbox is closing: a run that fails now is one the closing ended; nothing new starts. */
    final boolean closed() {
        return closed.get();
    }

    /** From now on a run that fails is one the closing ended; nothing new is pre-started. */
    final void closing() {
        closed.set(true);
    }

    /** Whether runs start under the in-sandbox supervisor. */
    boolean supervised() {
        return supervisor != null;
    }

    ChildGroup newGroup(ResourceLimits limits) throws IOException {
        return groups == null ? null
                : groups.create(limits.memoryBytes() + infraMemory(), limits.maxProcesses() + INFRA_PROCESSES);
    }

    /**
     * Memory a run's group holds beyond the request's limit, so that the program gets its limit, tmpfs pages
     * included: the supervisor (the Python one was measured at 9-10 MiB resident with ctypes loaded, the C one
     * needs well under 1) and headroom for the interpreter's file pages, without which a program filling its
     * memory to the limit thrashes in page reclaim (see docs/security-model.md).
     */
    static long infraMemory() {
        return 16 * ResourceLimits.MIB;
    }

    String nonce() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return java.util.HexFormat.of().formatHex(b);
    }

    /** The supervisor's job for a request running {@code argv}, then its stdin. */
    byte[] job(ExecutionRequest request, List<String> argv, String nonce) {
        return WarmPool.job(argv, plan.environment(null), files(request), rlimits(request), request, nonce);
    }

    /** The request's files, its main file first, as a supervisor or a zygote's run writes them. */
    static Map<String, String> files(ExecutionRequest request) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(request.program().mainFileName(), request.program().source());
        files.putAll(request.program().files());
        return files;
    }

    /** A supervised run's rlimits: Python's (and a judged candidate's, which is Python) with RLIMIT_AS. */
    List<LaunchPlan.Limit> rlimits(ExecutionRequest request) {
        return LaunchPlan.rlimits(request.limits(),
                request.judged() || LaunchPlan.addressSpaceLimit(request.program().language()), groups != null);
    }

    LaunchSpec supervisorSpec(long uid, ResourceLimits limits, ChildGroup group) {
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8");
        return new LaunchSpec(uid, workRoot, List.of(), supervisor.argv(), env, limits, true, null, false,
                group, true, supervisor.binds());
    }

    /** Closes a run's group off the reply path: kill what is left, rmdir. */
    void closeLater(ChildGroup group) {
        if (group == null) {
            return;
        }
        try {
            threads.execute(group::close);
        } catch (RejectedExecutionException closing) {
            group.close();
        }
    }

    /** How many runs are in flight. */
    int active() {
        return active.size();
    }

    /**
     * Starts a supervised run of {@code argv} with the request's files, rlimits and stdin: forked by {@code zygote}
     * when there is one ({@code channel}: its judge channel under the channels' root, or null), else in a sandbox of
     * its own with {@code binds}, its supervisor reporting behind a fresh nonce. {@code cpu}: the {@link CpuSlots}
     * index a forked run is pinned to, or -1.
     */
    Child startChild(ExecutionRequest request, List<String> argv, long uid, ChildGroup group, List<LaunchSpec.Bind> binds,
            String channel, Zygote zygote, int cpu, Isolation isolation) throws IOException {
        if (zygote != null) {
            // the supervisor's job without its nonce (the status comes from the run's init) and without the stdin
            dev.codeagent.kit.sandbox.SupervisorJob job = new dev.codeagent.kit.sandbox.SupervisorJob(
                    files(request), request.program().binaryFiles(), argv, plan.environment(null));
            rlimits(request).forEach(l -> job.rlimit(l.name(), l.soft(), l.hard()));
            LaunchSpec spec = new LaunchSpec(uid, workRoot, List.of(), argv, plan.environment(null), request.limits(), true, null,
                    false, group, true);
            Launch launch = zygote.launch(spec, nonce(), channel, group.procsFiles(), cpu, job.encode(), threads);
            forked.incrementAndGet();
            return new Child(launch, request.stdin().getBytes(StandardCharsets.UTF_8), request, isolation, killer, group, 0, null);
        }
        String nonce = nonce();
        LaunchSpec spec = supervisorSpec(uid, request.limits(), group).withMoreBinds(binds);
        return new Child(Launch.start(spec, plan.command(spec), threads), job(request, argv, nonce), request, isolation, killer,
                group, 0, nonce);
    }

    /**
     * A sandbox that lives until {@link #release} runs: its process, its group (or null), the uid it runs as (-1:
     * this JVM's), and what ends it all.
     */
    record LongLived(Process process, ChildGroup group, long uid, Runnable release) {
    }

    /**
     * Starts {@code argv} unsupervised (bubblewrap is its init) in a sandbox that outlives any one request — a judge
     * server, a session's kernel bridge: a pool uid, a control group with {@code limits}, an empty work directory,
     * the tier's filter, {@code binds}. Its release kills the group and the uid's processes, sweeps the uid and
     * removes the work directory and {@code alsoRemove}; a failure to start leaves nothing of it behind.
     *
     * @param kept whether it outlives the calling thread (started on the {@link #starter}); else it dies with it
     */
    LongLived startLongLived(ResourceLimits limits, boolean addressSpaceLimit, List<String> argv,
            List<LaunchSpec.Bind> binds, Path alsoRemove, boolean kept) throws IOException {
        long uid = uids == null ? -1 : uids.acquire();
        ChildGroup group = null;
        WorkDir dir = null;
        try {
            group = newGroup(limits);
            dir = WorkDir.create(workRoot, new Program(Language.PYTHON, "", Map.of()), uid);
            LaunchSpec spec = new LaunchSpec(uid, dir.path(), dir.files(), argv, plan.environment(dir.path()), limits,
                    addressSpaceLimit, null, true, group, false).withBinds(binds);
            ProcessBuilder pb = new ProcessBuilder(plan.command(spec)).directory(dir.path().toFile());
            pb.environment().clear();
            pb.environment().putAll(spec.env());
            Process p = kept ? onStarter(pb::start) : pb.start();
            ChildGroup g = group;
            Path d = dir.path();
            return new LongLived(p, g, uid, () -> {
                boolean clean = g == null || g.killAll();
                clean = killer.killAll(p, uid) && clean;
                p.destroyForcibly();
                if (uid >= 0) {
                    reaper.release(uid, clean);
                }
                Reaper.remove(d, null);
                Reaper.remove(alsoRemove, null);
                closeLater(g);
            });
        } catch (IOException | RuntimeException e) {
            if (group != null) {
                group.killAll();
                closeLater(group);
            }
            Reaper.remove(dir == null ? null : dir.path(), null);
            if (uid >= 0) {
                reaper.release(uid, true);
            }
            throw e;
        }
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
                || !e.detail().startsWith(WrapperFailure.DETAIL) || closed()) {
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
                e.isolation()).withOutput(e.output());
    }

    /** What one run came to, carried out of the clean-up. */
    static final class Result {
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

    void run(Child run, Result result) {
        active.add(run);
        try {
            result.execution = run.execute();
            result.cancelled = run.cancelled();
            result.closedDuringRun = closed() && result.execution != null
                    && result.execution.outcome() == Outcome.SANDBOX_ERROR;
        } finally {
            result.clean = run.clean();
            active.remove(run);
        }
    }
}
