package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;

/**
 * Runs executions: prepares a run (uid, control group, and a nonce for the supervisor's report; on hosts
 * without bubblewrap or Python a work directory and a measurement file instead), launches it through the
 * {@link LaunchPlan} (cold) or hands it to a pre-started sandbox (warm), and has its {@link Child} wait for the
 * program; then removes what the run left (its group in the background, off the reply path) and gives its uid
 * back. The single place that waits for a program.
 *
 * <p>Words, so that none is the domain's {@code Run} (an agent's run of a task): a <em>launch</em> starts a sandboxed
 * <em>child</em> from a {@link LaunchSpec} through the {@link LaunchPlan}'s wrappers ({@link LaunchWrapper}) and is a
 * {@link Launch}; the {@link Child} watches that child to its end (a {@link LiveChild} when its I/O is live), in its
 * {@link ChildGroup} made by the {@link ChildGroups}.
 *
 * <p>Each kind of launch is a class of its own over the state they share ({@link Launches}): {@link ColdLaunches},
 * {@link JudgedLaunches} with the {@link JudgeServers}, {@link ForkedLaunches} (the zygote), {@link WarmLaunches}
 * and {@link SessionLaunches}. This composes them for {@link ProcessSandbox}.
 */
final class Launcher {

    private final Launches shared;
    private final ColdLaunches cold;
    private final JudgeServers judgeServers;
    private final JudgedLaunches judged;
    private final ForkedLaunches forked;
    private final WarmLaunches warm;
    private final SessionLaunches sessions;

    /**
     * @param groups where each run's control group is made, or null where cgroups cannot be had
     * @param supervisor the in-sandbox supervisor ({@link Supervisor}) that runs as the
     *     sandbox's pid 1, or null (no bubblewrap, or no Python): runs then have their files bound in
     *     read-only from the host and their exit status is bubblewrap's
     */
    Launcher(LaunchPlan plan, UidPool uids, Reaper reaper, Killer killer, ExecutorService threads, Path workRoot,
            ChildGroups groups, Supervisor supervisor) {
        this.shared = new Launches(plan, uids, reaper, killer, threads, workRoot, groups, supervisor);
        this.cold = new ColdLaunches(shared);
        this.judgeServers = new JudgeServers(shared);
        this.judged = new JudgedLaunches(shared, judgeServers);
        this.forked = new ForkedLaunches(shared, cold, judged, judgeServers);
        this.warm = new WarmLaunches(shared);
        this.sessions = new SessionLaunches(shared);
    }

    /** Whether runs start under the in-sandbox supervisor. */
    boolean supervised() {
        return shared.supervised();
    }

    /** How many runs are in flight. */
    int active() {
        return shared.active();
    }

    /** Runs the request in a sandbox started for it. */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation) {
        return cold.cold(request, binary, isolation);
    }

    /**
     * Runs the request in a sandbox started for it; with {@code live}, its stdin stays open and its output also goes
     * to {@code live} as it comes (supervised runs only: the caller checks {@link #supervised()}).
     */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation, LiveChild live) {
        return cold.cold(request, binary, isolation, live);
    }

    /**
     * Runs a judged request: the candidate ({@code candidate.py} running the code) in one sandbox as one pool
     * uid, the judge ({@code judge.py} running the tests) in a second sandbox as another, both cold and
     * supervised, joined only by the channel's two FIFOs. The candidate's sandbox holds the request's limits;
     * the judge's its own ({@link #judgeLimits}). The judge's verdict is the one line it writes, behind a nonce
     * the candidate never sees, to the stdout of its own sandbox, which only this JVM reads.
     */
    Execution judged(ExecutionRequest request, Path binary, Isolation isolation, Path scripts) {
        return judged.judged(request, binary, isolation, scripts);
    }

    /** Whether Python runs can be forked from a zygote here (bubblewrap, root, control groups, the filter). */
    boolean forks() {
        return forked.forks();
    }

    /** The counts, with those the sandbox keeps itself; for tests and diagnostics. */
    ProcessDiagnostics diagnostics(long executions, long preStarted) {
        return new ProcessDiagnostics(executions, preStarted, shared.forked.get(), shared.batchJudged.get());
    }

    /** Starts the zygote now rather than at the first program that needs it (mode {@code all}). */
    void prepareZygote(Path python, Path scripts) {
        forked.prepareZygote(python, scripts);
    }

    /**
     * Runs a Python request (judged ones of a batch with the batch's {@link JudgeServer}) in a fork of the zygote;
     * null when no zygote can be had, and the caller runs it the usual way.
     */
    Execution forked(ExecutionRequest request, Path binary, Isolation isolation, Path scripts) {
        return forked.forked(request, binary, isolation, scripts);
    }

    /**
     * Starts a session's kernel bridge ({@code python}, which must have ipykernel) in a sandbox of its own: a pool
     * uid, a control group with the session's memory and processes, RLIMIT_CPU at the session's CPU budget, no
     * network. The sandbox lives until the returned channel is destroyed.
     */
    SessionChannel startSession(dev.codeagent.domain.session.SessionLimits limits, Path python) {
        return sessions.startSession(limits, python);
    }

    /**
     * Runs the request in a pre-started sandbox: its supervisor gets the job, then the program's stdin. Its
     * group, made and joined at pre-start, is set to the request's limits first (a few cgroupfs writes); null
     * when it cannot be (the sandbox is discarded and the caller runs the request cold).
     */
    Execution warm(WarmPool.Warm pre, ExecutionRequest request, Path binary, Isolation isolation) {
        return warm.warm(pre, request, binary, isolation);
    }

    /**
     * A run that looks as if a wrapper (bwrap, setpriv, prlimit, GNU time, the bootstrap) failed before the
     * program started is told so only by its stderr and exit status, which the program controls: hostile code
     * could print "bwrap: ..." and exit 1 to be reported as a sandbox failure, which callers retry, running
     * it again. So such a verdict stands only when the sandbox really is broken now: a probe run through the
     * same wrapping must fail, or the interpreter be gone. Otherwise the failure is the program's.
     */
    Execution confirmWrapperFailure(Execution e, Path binary) {
        return shared.confirmWrapperFailure(e, binary);
    }

    /** Pre-starts one sandbox with its supervisor waiting for a job, in a group of its own; null once closed. */
    WarmPool.Warm startWarm(long memoryBytes) {
        return warm.startWarm(memoryBytes);
    }

    /** Kills a pre-started sandbox that will not run anything, and releases what it held. */
    void discardWarm(WarmPool.Warm w) {
        warm.discardWarm(w);
    }

    /** From now on a run that fails is one the closing ended; nothing new is pre-started. */
    void closing() {
        shared.closing();
    }

    /** Ends the runs in flight (they report a cancellation) and waits, briefly, for them to be cleaned up. */
    void close() {
        shared.closing();
        judgeServers.close();
        for (Child r : shared.active) {
            r.cancelFromClose();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!shared.active.isEmpty() && System.nanoTime() < deadline) {
            // an interrupted close waits too: the zygote and the channels go next, under runs still cleaning up
            Cleanup.pause(10);
        }
        forked.close();
        judgeServers.removeChannelsRoot();
        shared.stopStarter();
    }
}
