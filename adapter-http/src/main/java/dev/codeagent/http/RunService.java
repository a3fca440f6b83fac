package dev.codeagent.http;

import dev.codeagent.application.run.Caller;
import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.run.RunRefusedException;
import dev.codeagent.application.run.RunScheduler;
import dev.codeagent.application.run.VisibleRuns;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.Type;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * The HTTP side of the {@link RunScheduler}: keeps each run's event journal for streaming, counts runs
 * in the metrics, and says a refusal as a problem document. Scheduling, cancelling and stopping are
 * the scheduler's; who may see or cancel a run is {@link VisibleRuns}'s: every look-up here names its
 * {@link Caller}, and a run the caller may not see is one this service does not have.
 */
final class RunService {

    /** The reason a run cut off by a stop or a crash ends with. */
    static final String INTERRUPTED = RecoverInterruptedRuns.REASON;
    private static final String CANCELLED = "cancelled";
    private static final int RECENT_JOURNALS = 256;

    private final RunScheduler scheduler;
    private final RunLog runLog;
    private final VisibleRuns visible;
    private final ApiMetrics metrics;
    private final Map<String, EventJournal> live = new ConcurrentHashMap<>();
    private final Map<String, EventJournal> recent = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, EventJournal> eldest) {
            return size() > RECENT_JOURNALS;
        }
    };

    /** The shared store's queue, where there is one: runs worked by other processes are followed and cancelled there. */
    private final dev.codeagent.application.work.WorkQueue queue;

    /** Whether runs this server accepts are queued for workers instead of solved here (a front door only). */
    private final boolean queueRuns;

    /** {@code http.maxConcurrentRunsPerKey} as it applies: runs one key may have going here at once. */
    private final int perKey;
    /** Runs going here, by owner ("" with auth off); guarded by itself. */
    private final Map<String, Integer> going = new java.util.HashMap<>();

    RunService(RunScheduler scheduler, RunLog runLog, ApiMetrics metrics) {
        this(scheduler, runLog, metrics, null, false, scheduler.maxRuns());
    }

    /** @param perKey runs one key may have going here at once (a share of the scheduler's places) */
    RunService(RunScheduler scheduler, RunLog runLog, ApiMetrics metrics, dev.codeagent.application.work.WorkQueue queue,
            boolean queueRuns, int perKey) {
        this.perKey = perKey;
        if (queueRuns && queue == null) {
            throw new IllegalArgumentException("queueing runs needs a shared store's queue");
        }
        this.scheduler = scheduler;
        this.runLog = runLog;
        this.visible = new VisibleRuns(runLog, scheduler);
        this.metrics = metrics;
        this.queue = queue;
        this.queueRuns = queueRuns;
    }

    /**
     * Starts the task under {@code id} as the caller's run; returns the run as first known.
     *
     * @throws ProblemException 503 when every run place is taken or the server is stopping
     */
    Run start(Caller caller, String id, Task task) {
        String owner = caller.owner();
        if (queueRuns) {
            // a front door only: the run waits in the shared store for a worker, with its owner; its stream follows it there
            Run queued = Run.started(id, task, java.time.Instant.now(), owner);
            queue.enqueue(queued);
            metrics.runStarted();
            return queued;
        }
        String slot = owner == null ? "" : owner;
        synchronized (going) {
            // the key's own share first: without it one key could hold every run place while another key is refused
            if (going.getOrDefault(slot, 0) >= perKey) {
                metrics.rejected("overloaded");
                throw ProblemException.retryLater(Type.OVERLOADED, "this key may have at most " + perKey
                        + (perKey == 1 ? " run" : " runs") + " going at once (http.maxConcurrentRunsPerKey, a share of"
                        + " http.maxConcurrentRuns); wait for one to finish", Duration.ofSeconds(5));
            }
            going.merge(slot, 1, Integer::sum);
        }
        EventJournal journal = new EventJournal();
        live.put(id, journal);
        Run run;
        boolean accepted = false;
        try {
            run = scheduler.start(id, task, owner, event -> {
                journal.append(event);
                if (event instanceof RunEvent.RunFinished) {
                    release(slot);
                    metrics.runFinished(((RunEvent.RunFinished) event).status());
                    // recent before live goes: a reader must always find the journal somewhere
                    synchronized (recent) {
                        recent.put(id, journal);
                    }
                    live.remove(id);
                }
            });
            accepted = true;
        } catch (RunRefusedException e) {
            live.remove(id);
            if (e.why() == RunRefusedException.Why.STOPPING) {
                throw new ProblemException(Type.SHUTTING_DOWN, "the server is shutting down; no new runs");
            }
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, "all " + scheduler.maxRuns()
                    + " run places are busy (http.maxConcurrentRuns); try again later", Duration.ofSeconds(5));
        } finally {
            if (!accepted) {
                release(slot);
            }
        }
        metrics.runStarted();
        return run;
    }

    private void release(String slot) {
        synchronized (going) {
            going.computeIfPresent(slot, (k, n) -> n > 1 ? n - 1 : null);
        }
    }

    /** The run, when the caller may see it: from the store, or as just accepted. */
    Optional<Run> find(Caller caller, String id) {
        return visible.find(caller, id);
    }

    /** The caller's runs (every run for an operator) of these statuses (none: all), newest first. */
    List<Run> recent(Caller caller, Set<RunStatus> statuses, int limit, String before) {
        return visible.recent(caller, statuses, limit, before);
    }

    /** The journal to stream, when the caller may see the run: live, recently finished, or re-created from the store. */
    Optional<EventJournal> journal(Caller caller, String id) {
        if (visible.find(caller, id).isEmpty()) {
            return Optional.empty();
        }
        EventJournal j = live.get(id);
        if (j != null) {
            return Optional.of(j);
        }
        synchronized (recent) {
            j = recent.get(id);
        }
        if (j != null) {
            return Optional.of(j);
        }
        return queue == null ? runLog.find(id).map(EventJournal::of) : followed(id);
    }

    /**
     * A run in the shared store, as any front door sees it: a RUNNING one that another process works is followed
     * (woken by the store's change notices), so its stream goes on as its worker records attempts; one journal per
     * run, shared by its readers, dropped to the recent ones when the run ends.
     */
    private Optional<EventJournal> followed(String id) {
        // follow before the first look, so that a change between the look and the follow is not missed
        dev.codeagent.application.work.WorkQueue.Follower changes = queue.follow(id);
        boolean handedOver = false;
        try {
            Optional<Run> stored = runLog.find(id);
            if (stored.isEmpty() || stored.get().status().isFinal()) {
                return stored.map(EventJournal::of);
            }
            EventJournal fresh = EventJournal.following(stored.get());
            EventJournal j = live.putIfAbsent(id, fresh);
            if (j != null) {
                return Optional.of(j); // another reader follows it already
            }
            Thread t = new Thread(() -> follow(id, fresh, changes), "codeagent-follow-" + id);
            t.setDaemon(true);
            t.start();
            handedOver = true;
            return Optional.of(fresh);
        } finally {
            if (!handedOver) {
                closeQuietly(changes);
            }
        }
    }

    private void follow(String id, EventJournal journal, dev.codeagent.application.work.WorkQueue.Follower changes) {
        try (changes) {
            while (!journal.finished() && !journal.closed()) {
                changes.await(Duration.ofSeconds(5));
                Optional<Run> now = runLog.find(id);
                if (now.isEmpty()) {
                    break;
                }
                journal.catchUp(now.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LoggerFactory.getLogger(RunService.class).warn("following run {} stopped: {}", id, e.toString());
        } finally {
            synchronized (recent) {
                recent.put(id, journal);
            }
            live.remove(id, journal);
            if (!journal.finished()) {
                journal.close();
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // nothing was handed out
        }
    }

    /**
     * Cancels a run another process works on through the shared store (its worker is told at once); false where
     * there is no shared store or the run is not waiting or worked there.
     */
    boolean cancelElsewhere(Caller caller, String id) {
        return queue != null && visible.find(caller, id).isPresent() && queue.cancel(id, CANCELLED);
    }

    /**
     * Cancels a run this server is working on and waits up to {@code wait} for it to end.
     *
     * @return empty when the run is not in progress here, or the caller may not see it (then nothing is done)
     */
    Optional<RunScheduler.Cancellation> cancel(Caller caller, String id, Duration wait) throws InterruptedException {
        if (visible.find(caller, id).isEmpty()) {
            return Optional.empty();
        }
        return scheduler.cancel(id, CANCELLED, wait);
    }

    int active() {
        return scheduler.active();
    }

    int maxRuns() {
        return scheduler.maxRuns();
    }

    void stopAccepting() {
        scheduler.stopAccepting();
    }

    /** Stops every run still going (they end ERROR, {@link #INTERRUPTED}) and waits briefly for them to record it. */
    void stopAll(Duration wait) throws InterruptedException {
        scheduler.stopAll(wait);
    }

    /** Ends every open event stream. */
    void closeJournals() {
        live.values().forEach(EventJournal::close);
        synchronized (recent) {
            recent.values().forEach(EventJournal::close);
        }
    }
}
