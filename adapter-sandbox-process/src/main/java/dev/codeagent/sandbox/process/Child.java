package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.OutcomeClassifier.Classification;
import dev.codeagent.domain.execution.OutcomeClassifier.Enforced;
import dev.codeagent.domain.execution.OutcomeClassifier.Termination;
import dev.codeagent.domain.execution.OutcomeClassifier;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.kit.sandbox.MemoryWatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution: feeds a started child ({@link Launch}) its input and watches it from the caller's
 * thread until it exits, goes past the wall-time limit or an output cap, is cancelled by an interrupt,
 * or the sandbox closes; then kills what is left and collects the result. Every wait after a
 * kill is bounded, so a process that holds a pipe open cannot hang the caller.
 */
final class Child {

    private static final Logger log = LoggerFactory.getLogger(Child.class);
    /** Longest wait for the direct child to be reaped after SIGKILL. */
    private static final Duration EXIT_WAIT = Duration.ofSeconds(5);
    /** Longest wait for the output pumps to reach end-of-file once nothing of the run is alive. */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(2);

    private static final OutcomeClassifier CLASSIFIER = new OutcomeClassifier();

    /** How often the run's control group is read while the run lives: CPU time and OOM kills. */
    static final Duration POLL = Duration.ofMillis(20);
    /** How recently the group must have hit its memory limit for a time limit's kill to count as the memory's. */
    static final Duration MEMORY_HELD = Duration.ofMillis(250);
    /** Room beyond the stderr cap for the supervisor's report, which is taken off before the cap is applied. */
    static final int REPORT_ROOM = 256;

    /** Why the sandbox itself ended a run, if it did. */
    enum Kill {
        WALL_TIME(Enforced.WALL_TIME), OUTPUT(Enforced.OUTPUT), CANCELLED(null), CLOSED(Enforced.CLOSED),
        MEMORY(Enforced.MEMORY), CPU_TIME(null), JUDGED(null);

        final Enforced enforced;

        Kill(Enforced enforced) {
            this.enforced = enforced;
        }
    }

    private final Launch launch;
    private final LaunchSpec spec;
    private final byte[] input;
    private final ExecutionRequest request;
    private final Isolation isolation;
    private final Killer killer;
    private final ChildGroup group;
    private final long cpuBase;
    private final byte[] marker;
    private volatile boolean clean = true;
    /** A live run's other end (LiveChild), or null for a run fed all at once. */
    private LiveChild live;
    private volatile boolean cancelled;
    /** The group's count of memory-limit hits at the last poll, and when it last rose (System.nanoTime()). */
    private long limitHits = -1;
    private long lastLimitHit = Long.MIN_VALUE;
    /** Made at the first reading of the group's memory (its hard limit is read there); null until then. */
    private MemoryWatch memoryWatch;
    /** Whether the group's memory showed the run's memory used up (see {@link MemoryWatch}). */
    private boolean memoryUsedUp;

    /**
     * @param launch the started child this run watches
     * @param input what to write to the child's stdin before closing it (for a pre-started sandbox, the
     *     job for its bootstrap followed by the program's stdin)
     * @param group the run's control group, or null: its CPU time (less {@code cpuBase}, what a pre-started
     *     sandbox's supervisor used before the job) and OOM kills are polled and enforced, its figures reported
     * @param nonce the secret behind which the in-sandbox supervisor reports the program's wait status, or
     *     null when no supervisor runs (the status is then bubblewrap's or the shell's, which cannot tell
     *     {@code exit 137} from SIGKILL)
     */
    Child(Launch launch, byte[] input, ExecutionRequest request, Isolation isolation, Killer killer, ChildGroup group,
            long cpuBase, String nonce) {
        this.launch = launch;
        this.spec = launch.spec;
        this.input = input;
        this.request = request;
        this.isolation = isolation;
        this.killer = killer;
        this.group = group;
        this.cpuBase = cpuBase;
        this.marker = nonce == null ? null : ("\u0000codeagent:" + nonce + ":").getBytes(StandardCharsets.US_ASCII);
    }

    /** Makes this a live run: its stdin stays open after the input and each chunk of output also goes to {@code run}. */
    Child live(LiveChild run) {
        this.live = run;
        return this;
    }

    /** Whether nothing of the run is left (its uid may be reused). */
    boolean clean() {
        return clean;
    }

    /** Whether the caller's interrupt ended the run; {@link #execute()} then returned null. */
    boolean cancelled() {
        return cancelled;
    }

    /** Ends the run from another thread because the sandbox is closing. */
    void cancelFromClose() {
        launch.close();
    }

    /**
     * Ends the run from another thread because the judge has decided from the program's replies
     * ({@link dev.codeagent.domain.execution.JudgeReport.Outcome#decidedFromReplies()}): what it computes after them
     * (calls the judge sent ahead of the tests) would never have run in one process.
     */
    void endJudged() {
        launch.endJudged();
    }

    Execution execute() {
        ResourceLimits limits = request.limits();
        OutputBuffer out = launch.out;
        OutputBuffer err = launch.err;
        if (out.cap(limits.maxOutputBytes()) | err.cap(limits.maxOutputBytes() + (marker == null ? 0 : REPORT_ROOM))) {
            launch.overflow = true;
        }
        CompletableFuture<Integer> exit = launch.exit;
        long start = System.nanoTime();
        if (live != null) {
            launch.streams.feedLive(input, live, group);
        } else {
            launch.streams.feed(input);
        }

        Kill kill = watch(exit, start + limits.wallTime().toNanos());
        long end = System.nanoTime();
        if ((kill == Kill.WALL_TIME || kill == Kill.CPU_TIME) && heldAtMemoryLimit(end)) {
            // a run pinned at its memory limit spends its time in reclaim (the runtime's own file pages evicted and
            // read again, swap being off) rather than dying: what ended it was its memory, not its code's speed
            kill = Kill.MEMORY;
        }
        if (kill != null) {
            launch.kill();
            clean = killGroup() && clean;
            clean = killer.killAll(started(exit), spec.uid()) && clean;
        }
        Integer status = awaitExit(exit);
        if (kill == null && status != null) {
            clean = killer.afterExit(started(exit), spec.uid()) && clean;
        }
        if (!launch.streams.awaitDrained(DRAIN_WAIT)) {
            log.warn("process sandbox: output pipes still open after the run; abandoning them");
            clean = killer.killAll(started(exit), spec.uid()) && clean;
            launch.streams.abandon();
        }
        Duration wall = Duration.ofNanos(end - start);
        if (kill == Kill.CANCELLED) {
            cancelled = true;
            return null;
        }
        if (status == null && kill == null) {
            return Execution.sandboxError(startFailure(exit), wall, isolation);
        }
        Rusage usage = group != null ? groupUsage() : Rusage.read(spec.rusageHost());
        Report report = null;
        if (marker != null) {
            String line = err.takeReport(marker);
            err.enforceCap(limits.maxOutputBytes());
            report = line == null ? null : Report.parse(line);
        } else {
            report = launch.report;
        }
        if (kill == null && group != null) {
            // what the group says decides, also when the program ended before the next poll
            kill = group.oomKilled() || group.outOfMemory() || memoryUsedUp ? Kill.MEMORY
                    : overCpu(usage.cpu(), limits) ? Kill.CPU_TIME : null;
        }
        Integer signal;
        Integer exitCode;
        boolean killedOutside = false;
        if (kill != null && (report == null || kill != Kill.CPU_TIME)) {
            signal = OutcomeClassifier.SIGKILL;
            exitCode = null;
        } else if (report != null) {
            // the real wait status, as the supervisor saw it
            signal = report.signal();
            exitCode = report.exitCode();
        } else if (status != null && (marker != null ? status == 128 + OutcomeClassifier.SIGKILL : launch.attached())) {
            // no report, and either bubblewrap's status for a child killed by SIGKILL (the supervisor itself was
            // killed: never the program's own exit status 137) or a zygote's run with no wait status (the zygote read
            // none, or the run's init ended before its program): a death by SIGKILL. With a group that saw neither an
            // OOM kill nor a limit (its figures above), nothing of the run's did it: the program cannot kill its
            // supervisor or init (pid 1 of its namespace, which ignores a SIGKILL sent from inside; the zygote ends the
            // init only after its program), so something outside the run did, and the program's result is unknown.
            // Without a group an OOM kill cannot be ruled out: the classifier decides.
            signal = OutcomeClassifier.SIGKILL;
            exitCode = null;
            killedOutside = group != null;
        } else if (marker != null && status != null) {
            // the supervisor never reports nothing unless it failed before the program started: its status
            signal = null;
            exitCode = status;
        } else {
            signal = status == null ? null : signalOf(status);
            exitCode = signal != null ? null : status;
        }
        String stdout = out.capture().text();
        String stderr = err.capture().text();
        // OK, as the run of a candidate that ends by itself once the judge hangs up: whether the sandbox or the program
        // was first must not show (an evaluation's report would differ from run to run)
        Classification v = kill == Kill.JUDGED ? new Classification(Outcome.OK, "ended by the sandbox once "
                + "the judge had decided from its replies: what it did after them does not count")
                : killedOutside ? new Classification(Outcome.SANDBOX_ERROR, "the run's supervisor or init was killed "
                + "from outside the run (SIGKILL, with no limit of the run reached): the program's result is unknown")
                : kill == null && !out.overflowed() && !err.overflowed()
                ? WrapperFailure.detail(exitCode, stdout, stderr).map(d -> new Classification(Outcome.SANDBOX_ERROR, d)).orElse(null)
                : null;
        if (v == null && kill == Kill.CPU_TIME && !out.overflowed() && !err.overflowed()) {
            // the classifier decides whether the runtime had already run out of memory before it spun to the limit
            Classification c = CLASSIFIER.classify(new Termination(request.program().language(), null, 9, null, false, false,
                    false, usage.cpu() != null ? usage.cpu() : limits.cpuTime(), stderr, null), limits);
            v = c.outcome() == Outcome.MEMORY_LIMIT ? c
                    : new Classification(Outcome.TIME_LIMIT, "the run's processes together used more than the CPU-time limit of "
                            + OutcomeClassifier.duration(limits.cpuTime()));
        }
        if (v == null) {
            Termination facts = new Termination(request.program().language(), exitCode, signal,
                    kill == null ? null : kill.enforced, out.overflowed(), err.overflowed(),
                    group != null && group.oomKilled(), usage.cpu(), stderr, null);
            v = CLASSIFIER.classify(facts, limits);
        }
        if (group != null && kill == null && v.outcome() == Outcome.TIME_LIMIT) {
            // the group saw the run stay within its CPU time: a SIGXCPU or SIGKILL the program sent itself is
            // not a limit (the kernel's RLIMIT_CPU signal comes only past the limit, which the group then shows)
            v = new Classification(Outcome.RUNTIME_ERROR, signal != null ? "killed by signal " + signal
                    : "exited with status " + exitCode);
        }
        if (v.outcome() == Outcome.SANDBOX_ERROR) {
            log.warn("process sandbox: {}", v.detail());
        }
        return new Execution(v.outcome(), exitCode, signal, out.capture(), err.capture(), wall, usage.cpu(),
                usage.peakBytes(), v.detail(), isolation).withOutput(out.mergedWith(err, launch.order));
    }

    private boolean killGroup() {
        return group == null || group.killAll();
    }

    private Rusage groupUsage() {
        return new Rusage(Duration.ofNanos(Math.max(0, group.cpuNanos() - cpuBase)), group.peakMemoryBytes());
    }

    private static boolean overCpu(Duration cpu, ResourceLimits limits) {
        return cpu != null && cpu.compareTo(limits.cpuTime()) > 0;
    }

    /**
     * Whether the group's memory decided the run's end: the OOM killer took one of its processes or its tasks wait on
     * it (a victim can take long to die, and the time limit came first: the JavaScript off-heap test, killed at the
     * wall limit with no limit hit in its last second), or the
     * group was still hitting its limit within the last {@link #MEMORY_HELD} before {@code now}.
     */
    private boolean heldAtMemoryLimit(long now) {
        if (group == null) {
            return false;
        }
        try {
            if (memoryUsedUp || group.oomKilled() || group.outOfMemory()) {
                return true;
            }
        } catch (RuntimeException e) {
            // unreadable: the hits below decide
        }
        notePressure();
        return lastLimitHit != Long.MIN_VALUE && now - lastLimitHit <= MEMORY_HELD.toNanos();
    }

    private void notePressure() {
        try {
            long hits = group.memoryLimitHits();
            if (limitHits >= 0 && hits > limitHits) {
                lastLimitHit = System.nanoTime();
            }
            limitHits = hits;
        } catch (RuntimeException e) {
            // a group that cannot be read tells nothing about pressure; the other figures decide
        }
    }

    /**
     * Whether the group's memory now shows the run's memory used up: what reclaim cannot give back reached the limit,
     * or the group thrashes at its hard limit (see {@link MemoryWatch}). The supervisor's own memory (the compiled one:
     * well under 1 MiB) counts as the run's, as every page of the group does.
     */
    private boolean memoryUsedUp() {
        if (!memoryUsedUp) {
            try {
                if (memoryWatch == null) {
                    memoryWatch = new MemoryWatch(request.limits().memoryBytes(), 0, group.memoryLimit());
                }
                // most polls of most runs: the charge alone says there is room, and memory.stat is not read
                if (memoryWatch.plainlyUnder(group.memoryUsage())) {
                    return false;
                }
            } catch (RuntimeException unreadable) {
                // the full reading below decides, or tells nothing
            }
            group.memory().ifPresent(r -> {
                if (memoryWatch == null) {
                    memoryWatch = new MemoryWatch(request.limits().memoryBytes(), 0, r.limit());
                }
                memoryUsedUp = memoryWatch.exhausted(r);
            });
        }
        return memoryUsedUp;
    }

    /** Reads the group while the run lives; the reason to end the run, or null. */
    private Kill poll(ResourceLimits limits) {
        notePressure();
        if (memoryUsedUp() || group.oomKilled()) {
            return Kill.MEMORY;
        }
        return overCpu(Duration.ofNanos(group.cpuNanos() - cpuBase), limits) ? Kill.CPU_TIME : null;
    }

    /** The supervisor's report: the program's wait status. */
    record Report(Integer exitCode, Integer signal) {

        /** What the supervisor writes: {@code {"exit": 0, "signal": null}}, one of them a number. */
        private static final java.util.regex.Pattern LINE = java.util.regex.Pattern.compile(
                "\\{\"exit\": (\\d{1,3}|null), \"signal\": (\\d{1,2}|null)\\}");

        static Report parse(String line) {
            java.util.regex.Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                return null;
            }
            Integer exit = m.group(1).equals("null") ? null : Integer.valueOf(m.group(1));
            Integer signal = m.group(2).equals("null") ? null : Integer.valueOf(m.group(2));
            return exit == null && signal == null ? null : new Report(exit, signal);
        }
    }

    /** Exit status to signal number (129..159: death by signal status-128, the convention of bwrap, shells and Java), or null. */
    static Integer signalOf(int status) {
        return status > 128 && status < 160 ? status - 128 : null;
    }

    /** The started child; waits briefly when a kill came before Commons Exec reported the start. */
    private Process started(CompletableFuture<Integer> exit) {
        Process p = launch.process.getNow(null);
        if (p != null || exit.isDone()) {
            return p;
        }
        try {
            return launch.process.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return launch.process.getNow(null);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /** Waits for the first reason to stop; null when the program exited by itself. */
    private Kill watch(CompletableFuture<Integer> exit, long deadline) {
        CompletableFuture<Void> wake = launch.wake;
        while (true) {
            if (launch.closing) {
                return Kill.CLOSED;
            }
            if (launch.overflow) {
                return Kill.OUTPUT;
            }
            if (exit.isDone()) {
                return null;
            }
            if (launch.judged) {
                return Kill.JUDGED;
            }
            if (group != null) {
                Kill k = poll(request.limits());
                if (k != null) {
                    return k;
                }
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return Kill.WALL_TIME;
            }
            if (group != null) {
                remaining = Math.min(remaining, POLL.toNanos());
            }
            try {
                if (wake.isDone()) {
                    // woken by the exit callback racing isDone(): wait for the future itself, bounded
                    exit.get(remaining, TimeUnit.NANOSECONDS);
                } else {
                    wake.get(remaining, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                return Kill.CANCELLED;
            } catch (TimeoutException | ExecutionException e) {
                // the next iteration decides
            }
        }
    }

    /** The exit status, or null when the child could not be started or was not reaped in time. */
    private Integer awaitExit(CompletableFuture<Integer> exit) {
        long deadline = System.nanoTime() + EXIT_WAIT.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return exit.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // finish the clean-up first; the flag is restored below
                    interrupted = true;
                } catch (ExecutionException e) {
                    return null;
                } catch (TimeoutException e) {
                    log.warn("process sandbox: the child was not reaped {} after the kill", EXIT_WAIT);
                    clean = false;
                    return null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String startFailure(CompletableFuture<Integer> exit) {
        try {
            exit.getNow(null);
            return "the program did not finish after it was killed";
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return "could not start the program: " + cause.getMessage();
        }
    }

    /**
     * CPU time and peak memory as GNU time wrote them ("%e %U %S %M"); nulls when it did not. The file is
     * the program's uid's and visible to it, so the program can write it (up to its file-size limit): the
     * figures are informative only, and no more than a line is read.
     */
    record Rusage(Duration cpu, Long peakBytes) {

        private static final int MAX_BYTES = 256;

        static Rusage read(java.nio.file.Path file) {
            if (file == null) {
                return new Rusage(null, null);
            }
            try (java.io.InputStream in = Files.newInputStream(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                String s = new String(in.readNBytes(MAX_BYTES), StandardCharsets.US_ASCII).trim();
                String[] f = s.split("\\s+");
                if (f.length != 4) {
                    return new Rusage(null, null);
                }
                double cpu = Double.parseDouble(f[1]) + Double.parseDouble(f[2]);
                long kib = Long.parseLong(f[3]);
                return new Rusage(Duration.ofNanos(Math.round(cpu * 1e9)), kib * 1024);
            } catch (IOException | RuntimeException e) {
                return new Rusage(null, null);
            }
        }
    }
}
