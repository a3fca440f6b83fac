package dev.codeagent.application.run;

import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.solve.StopReason;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs agent tasks in the background on a bounded pool, with no queue: when every place is taken a new
 * run is refused at once ({@link RunRefusedException}), never left waiting.
 *
 * <p>A run ends one way or another, in the run log and as the last event its listener hears: by the
 * loop itself; CANCELLED with the caller's reason when {@linkplain #cancel cancelled}; ERROR with
 * {@link RecoverInterruptedRuns#REASON} when a {@linkplain #stopAll graceful stop} cuts it off, as a
 * crash would be recorded at the next start; ERROR "internal error" when the loop itself fails. The
 * loop is told why it was interrupted, so the run log is written once, with the right status.
 */
public final class RunScheduler {

    private static final Logger log = LoggerFactory.getLogger(RunScheduler.class);
    private static final StopReason SHUTDOWN = new StopReason(RunStatus.ERROR, RecoverInterruptedRuns.REASON);

    /** What a cancel found: the run as it is now, and whether it has reached its end. */
    public record Cancellation(Run run, boolean ended) {
    }

    private final Supplier<SolveTask> solveTask;
    private final RunLog runLog;
    private final Clock clock;
    private final ThreadPoolExecutor pool;
    private final ConcurrentHashMap<String, ActiveRun> active = new ConcurrentHashMap<>();
    private volatile boolean accepting = true;

    /**
     * @param solveTask the agent loop, recording to {@code runLog}
     * @param runLog where the loop records runs; read to answer for runs, written when the loop cannot end a run itself
     * @param maxRuns runs going on at once
     */
    public RunScheduler(SolveTask solveTask, RunLog runLog, int maxRuns, Clock clock) {
        this(loopOf(Objects.requireNonNull(solveTask, "solveTask")), runLog, maxRuns, clock);
    }

    /**
     * As above, the agent loop asked for only when a run starts: a door whose runs go whole to the workers' queue
     * ({@link dev.codeagent.application.work.RunPlacement}) keeps a scheduler to answer for runs, and builds no
     * generator or sandbox for it.
     */
    public RunScheduler(Supplier<SolveTask> solveTask, RunLog runLog, int maxRuns, Clock clock) {
        this.solveTask = Objects.requireNonNull(solveTask, "solveTask");
        this.runLog = Objects.requireNonNull(runLog, "runLog");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (maxRuns < 1) {
            throw new IllegalArgumentException("maxRuns must be at least 1, was " + maxRuns);
        }
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(maxRuns, maxRuns, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "run-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
    }

    /**
     * Starts the task under {@code id} and returns the run as it is known before the loop records it.
     * The listener hears the run's events on the run's thread, ending with exactly one run-finished.
     *
     * @throws RunRefusedException when every place is taken or the scheduler is stopping
     */
    public Run start(String id, Task task, RunListener listener) {
        return start(id, task, null, listener);
    }

    /** As {@link #start(String, Task, RunListener)}, the run recorded as {@code owner}'s (null: no one's). */
    public Run start(String id, Task task, String owner, RunListener listener) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(listener, "listener");
        if (!accepting) {
            throw new RunRefusedException(RunRefusedException.Why.STOPPING, "the scheduler is stopping; no new runs");
        }
        ActiveRun run = new ActiveRun(id, task, Run.checkOwner(owner), clock.instant(), listener);
        if (active.putIfAbsent(id, run) != null) {
            throw new IllegalArgumentException("a run with id '" + id + "' is already going");
        }
        try {
            pool.execute(() -> work(run));
        } catch (RejectedExecutionException e) {
            active.remove(id);
            throw accepting
                    ? new RunRefusedException(RunRefusedException.Why.BUSY, "all " + maxRuns() + " run places are busy")
                    : new RunRefusedException(RunRefusedException.Why.STOPPING, "the scheduler is stopping; no new runs");
        }
        return run.placeholder();
    }

    private void work(ActiveRun run) {
        run.attach(Thread.currentThread());
        try {
            solveTask.get().solve(run.id, run.task, run.owner, run::hear, run::stopReason);
        } catch (RuntimeException | Error e) {
            // a failing store, a cancellation surfacing as an exception, or a bug: the run must still end,
            // for the listener and, where the store can take it, in the store
            StopReason stop = run.stopReason();
            if (stop == null) {
                log.error("run {} failed: {}", run.id, e.toString(), e);
                stop = new StopReason(RunStatus.ERROR, "internal error: " + e.getClass().getSimpleName());
            }
            Instant at = clock.instant();
            try {
                if (runLog.find(run.id).map(r -> r.status() == RunStatus.RUNNING).orElse(false)) {
                    runLog.ended(run.id, stop.status(), at, stop.reason());
                }
            } catch (RuntimeException again) {
                log.warn("run {} could not be marked ended: {}", run.id, again.toString());
            }
            run.hear(new RunEvent.RunFinished(run.id, at, stop.status(), stop.reason()));
        } finally {
            run.detach();
            active.remove(run.id);
            run.done.countDown();
        }
    }

    private static Supplier<SolveTask> loopOf(SolveTask loop) {
        return () -> loop;
    }

    /** The run: from the run log, or as just accepted when the loop has not recorded it yet. */
    public Optional<Run> find(String id) {
        Optional<Run> stored = runLog.find(id);
        if (stored.isPresent()) {
            return stored;
        }
        ActiveRun a = active.get(id);
        return a == null ? Optional.empty() : Optional.of(a.placeholder());
    }

    /**
     * Cancels a run this scheduler is working on (it ends CANCELLED with {@code reason}) and waits up
     * to {@code wait} for it to end.
     *
     * @return empty when this scheduler is not working on that run
     */
    public Optional<Cancellation> cancel(String id, String reason, Duration wait) throws InterruptedException {
        StopReason why = new StopReason(RunStatus.CANCELLED, reason);
        ActiveRun a = active.get(id);
        if (a == null) {
            return Optional.empty();
        }
        a.requestStop(why);
        boolean ended = a.done.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        Run run = runLog.find(id).orElse(a.placeholder());
        return Optional.of(new Cancellation(run, ended && run.status().isFinal()));
    }

    /** Runs going on now. */
    public int active() {
        return active.size();
    }

    public int maxRuns() {
        return pool.getMaximumPoolSize();
    }

    /** Refuses new runs from now on; runs going on continue. The first step of a graceful stop. */
    public void stopAccepting() {
        accepting = false;
        pool.shutdown();
    }

    /**
     * Stops every run still going (each ends ERROR with {@link RecoverInterruptedRuns#REASON}) and
     * waits up to {@code wait} for them to record it. Refuses new runs from now on.
     */
    public void stopAll(Duration wait) throws InterruptedException {
        stopAccepting();
        for (ActiveRun a : active.values()) {
            log.info("stopping run {}: the process is stopping", a.id);
            a.requestStop(SHUTDOWN);
        }
        if (!pool.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            log.warn("{} runs did not stop in {} ms", active.size(), wait.toMillis());
        }
    }

    /** A run this scheduler is working on. */
    private static final class ActiveRun {
        final String id;
        final Task task;
        final String owner;
        final Instant startedAt;
        final CountDownLatch done = new CountDownLatch(1);
        private final RunListener listener;
        private Thread thread;
        private StopReason stop;
        private boolean ended;
        private boolean finishHeard;

        ActiveRun(String id, Task task, String owner, Instant startedAt, RunListener listener) {
            this.id = id;
            this.task = task;
            this.owner = owner;
            this.startedAt = startedAt;
            this.listener = listener;
        }

        synchronized StopReason stopReason() {
            return stop;
        }

        /** The first reason wins: a cancel during a shutdown stays a cancel, and the reverse. */
        synchronized void requestStop(StopReason why) {
            if (stop == null) {
                stop = why;
            }
            if (thread != null && !ended) {
                thread.interrupt();
            }
        }

        synchronized void attach(Thread t) {
            thread = t;
            if (stop != null) {
                t.interrupt();
            }
        }

        synchronized void detach() {
            ended = true;
            thread = null;
            // the pool thread goes on to other runs: it must not carry this run's interruption with it
            Thread.interrupted();
        }

        /** Passes events on, and run-finished only once. */
        void hear(RunEvent event) {
            synchronized (this) {
                if (finishHeard) {
                    return;
                }
                finishHeard = event instanceof RunEvent.RunFinished;
            }
            try {
                listener.on(event);
            } catch (RuntimeException e) {
                log.warn("a run listener failed on {}: {}", event.name(), e.toString());
            }
        }

        Run placeholder() {
            return Run.started(id, task, startedAt, owner);
        }
    }
}
