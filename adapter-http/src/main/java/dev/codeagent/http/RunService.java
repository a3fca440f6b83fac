package dev.codeagent.http;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.Type;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs agent tasks in the background on a bounded pool (no queue: when every place is taken a new
 * run is refused at once), keeps each run's event journal, cancels runs, and stops them all when
 * the server stops.
 *
 * <p>A run stopped by a user ends CANCELLED. A run stopped because the server is shutting down ends
 * ERROR with {@link #INTERRUPTED}, as runs cut off by a crash are marked at the next start: the
 * run log handed to the loop is wrapped to say so.
 */
final class RunService {

    static final String INTERRUPTED = "interrupted: the server stopped before the run finished";
    private static final Logger log = LoggerFactory.getLogger(RunService.class);
    private static final int RECENT_JOURNALS = 256;

    /** The agent loop, as {@code SolveTask.solve}. */
    @FunctionalInterface
    interface Solver {
        Run solve(String runId, Task task, RunListener listener);
    }

    /** Builds the loop around the run log it must write to. */
    @FunctionalInterface
    interface SolverFactory {
        Solver create(RunLog runLog);
    }

    enum Stop { NONE, USER, SHUTDOWN }

    /** A run this server is working on. */
    static final class ActiveRun {
        final String id;
        final Task task;
        final Instant startedAt;
        final EventJournal journal = new EventJournal();
        final CountDownLatch done = new CountDownLatch(1);
        private Thread thread;
        private Stop stop = Stop.NONE;
        private boolean ended;

        ActiveRun(String id, Task task, Instant startedAt) {
            this.id = id;
            this.task = task;
            this.startedAt = startedAt;
        }

        synchronized Stop stop() {
            return stop;
        }

        synchronized void requestStop(Stop why) {
            if (stop == Stop.NONE) {
                stop = why;
            }
            if (thread != null && !ended) {
                thread.interrupt();
            }
        }

        synchronized void attach(Thread t) {
            thread = t;
            if (stop != Stop.NONE) {
                t.interrupt();
            }
        }

        synchronized void detach() {
            ended = true;
            thread = null;
            // the pool thread goes on to other runs: it must not carry this run's cancellation with it
            Thread.interrupted();
        }

        /** The run as far as it is known before the store has it. */
        Run placeholder() {
            return Run.started(id, task, startedAt);
        }
    }

    /** What a cancel request found. */
    record Cancelled(Run run, boolean ended) {
    }

    private final RunLog runLog;
    private final Solver solver;
    private final Clock clock;
    private final ApiMetrics metrics;
    private final ThreadPoolExecutor pool;
    private final Map<String, ActiveRun> active = new ConcurrentHashMap<>();
    private final Map<String, EventJournal> recent = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, EventJournal> eldest) {
            return size() > RECENT_JOURNALS;
        }
    };
    private volatile boolean accepting = true;

    RunService(RunLog runLog, SolverFactory solvers, int maxRuns, Clock clock, ApiMetrics metrics) {
        this.runLog = runLog;
        this.clock = clock;
        this.metrics = metrics;
        this.solver = solvers.create(new ShutdownAwareRunLog(runLog));
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(maxRuns, maxRuns, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "run-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        pool.allowCoreThreadTimeOut(true);
    }

    /**
     * Starts the task under a fresh id.
     *
     * @throws ProblemException 503 when every run place is taken or the server is stopping
     */
    ActiveRun start(String id, Task task) {
        if (!accepting) {
            throw new ProblemException(Type.SHUTTING_DOWN, "the server is shutting down; no new runs");
        }
        ActiveRun run = new ActiveRun(id, task, clock.instant());
        active.put(id, run);
        try {
            pool.execute(() -> work(run));
        } catch (RejectedExecutionException e) {
            active.remove(id);
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, "all " + pool.getMaximumPoolSize()
                    + " run places are busy (http.maxConcurrentRuns); try again later", Duration.ofSeconds(5));
        }
        metrics.runStarted();
        return run;
    }

    private void work(ActiveRun run) {
        run.attach(Thread.currentThread());
        try {
            solver.solve(run.id, run.task, event -> run.journal.append(translate(run, event)));
        } catch (RuntimeException | Error e) {
            // a failing store, a cancellation surfacing as an exception, or a bug: the run must still end,
            // in the journal and, where possible, in the store
            Stop stop = run.stop();
            RunStatus status = stop == Stop.USER ? RunStatus.CANCELLED : RunStatus.ERROR;
            String reason = stop == Stop.USER ? "cancelled" : stop == Stop.SHUTDOWN ? INTERRUPTED
                    : "internal error: " + e.getClass().getSimpleName();
            if (stop == Stop.NONE) {
                log.error("run {} failed: {}", run.id, e.toString(), e);
            }
            Instant at = clock.instant();
            try {
                if (runLog.find(run.id).map(r -> r.status() == RunStatus.RUNNING).orElse(false)) {
                    runLog.ended(run.id, status, at, reason);
                }
            } catch (RuntimeException again) {
                log.warn("run {} could not be marked ended: {}", run.id, again.toString());
            }
            if (!run.journal.finished()) {
                metrics.runFinished(status);
            }
            run.journal.append(new RunEvent.RunFinished(run.id, at, status, reason));
        } finally {
            run.detach();
            synchronized (recent) {
                recent.put(run.id, run.journal);
            }
            active.remove(run.id);
            run.done.countDown();
        }
    }

    private RunEvent translate(ActiveRun run, RunEvent event) {
        if (event instanceof RunEvent.RunFinished) {
            RunEvent.RunFinished f = (RunEvent.RunFinished) event;
            RunStatus status = f.status();
            String reason = f.reason();
            if (status == RunStatus.CANCELLED && run.stop() == Stop.SHUTDOWN) {
                status = RunStatus.ERROR;
                reason = INTERRUPTED;
            }
            metrics.runFinished(status);
            return new RunEvent.RunFinished(f.runId(), f.at(), status, reason);
        }
        return event;
    }

    /** The run: from the store, or the placeholder of one that has just been accepted. */
    Optional<Run> find(String id) {
        Optional<Run> stored = runLog.find(id);
        if (stored.isPresent()) {
            return stored;
        }
        ActiveRun a = active.get(id);
        return a == null ? Optional.empty() : Optional.of(a.placeholder());
    }

    List<Run> recent(int limit, String before) {
        return runLog.recent(limit, before);
    }

    /** The journal to stream: live, recently finished, or re-created from the store. */
    Optional<EventJournal> journal(String id) {
        ActiveRun a = active.get(id);
        if (a != null) {
            return Optional.of(a.journal);
        }
        synchronized (recent) {
            EventJournal j = recent.get(id);
            if (j != null) {
                return Optional.of(j);
            }
        }
        return runLog.find(id).map(EventJournal::of);
    }

    /**
     * Cancels a run this server is working on and waits up to {@code wait} for it to end.
     *
     * @return empty when the run is not in progress here
     */
    Optional<Cancelled> cancel(String id, Duration wait) throws InterruptedException {
        ActiveRun a = active.get(id);
        if (a == null) {
            return Optional.empty();
        }
        a.requestStop(Stop.USER);
        boolean ended = a.done.await(wait.toMillis(), TimeUnit.MILLISECONDS);
        Run run = runLog.find(id).orElse(a.placeholder());
        return Optional.of(new Cancelled(run, ended && run.status().isFinal()));
    }

    int active() {
        return active.size();
    }

    int maxRuns() {
        return pool.getMaximumPoolSize();
    }

    /** Refuses new runs from now on. */
    void stopAccepting() {
        accepting = false;
        pool.shutdown();
    }

    /** Stops every run still going (they end ERROR, interrupted) and waits briefly for them to record it. */
    void stopAll(Duration wait) throws InterruptedException {
        for (ActiveRun a : active.values()) {
            log.info("stopping run {}: the server is shutting down", a.id);
            a.requestStop(Stop.SHUTDOWN);
        }
        if (!pool.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            log.warn("{} runs did not stop in {} ms", active.size(), wait.toMillis());
        }
    }

    /** Ends every open event stream. */
    void closeJournals() {
        active.values().forEach(a -> a.journal.close());
        synchronized (recent) {
            recent.values().forEach(EventJournal::close);
        }
    }

    /** Records a run stopped by the shutdown as ERROR (interrupted) instead of CANCELLED. */
    private final class ShutdownAwareRunLog implements RunLog {
        private final RunLog delegate;

        ShutdownAwareRunLog(RunLog delegate) {
            this.delegate = delegate;
        }

        @Override
        public void started(Run run) {
            delegate.started(run);
        }

        @Override
        public void attemptFinished(String runId, Attempt attempt) {
            delegate.attemptFinished(runId, attempt);
        }

        @Override
        public void ended(String runId, RunStatus status, Instant endedAt, String reason) {
            ActiveRun a = active.get(runId);
            if (status == RunStatus.CANCELLED && a != null && a.stop() == Stop.SHUTDOWN) {
                delegate.ended(runId, RunStatus.ERROR, endedAt, INTERRUPTED);
            } else {
                delegate.ended(runId, status, endedAt, reason);
            }
        }

        @Override
        public Optional<Run> find(String runId) {
            return delegate.find(runId);
        }

        @Override
        public List<Run> recent(int limit, String beforeId) {
            return delegate.recent(limit, beforeId);
        }

        @Override
        public int markInterrupted(String reason) {
            return delegate.markInterrupted(reason);
        }
    }
}
