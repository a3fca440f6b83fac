package dev.codeagent.http;

import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.run.RunRefusedException;
import dev.codeagent.application.run.RunScheduler;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.Type;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The HTTP side of the {@link RunScheduler}: keeps each run's event journal for streaming, counts runs
 * in the metrics, and says a refusal as a problem document. Scheduling, cancelling and stopping are
 * the scheduler's.
 */
final class RunService {

    /** The reason a run cut off by a stop or a crash ends with. */
    static final String INTERRUPTED = RecoverInterruptedRuns.REASON;
    private static final String CANCELLED = "cancelled";
    private static final int RECENT_JOURNALS = 256;

    private final RunScheduler scheduler;
    private final RunLog runLog;
    private final ApiMetrics metrics;
    private final Map<String, EventJournal> live = new ConcurrentHashMap<>();
    private final Map<String, EventJournal> recent = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, EventJournal> eldest) {
            return size() > RECENT_JOURNALS;
        }
    };

    RunService(RunScheduler scheduler, RunLog runLog, ApiMetrics metrics) {
        this.scheduler = scheduler;
        this.runLog = runLog;
        this.metrics = metrics;
    }

    /**
     * Starts the task under {@code id}; returns the run as first known.
     *
     * @throws ProblemException 503 when every run place is taken or the server is stopping
     */
    Run start(String id, Task task) {
        EventJournal journal = new EventJournal();
        live.put(id, journal);
        Run run;
        try {
            run = scheduler.start(id, task, event -> {
                journal.append(event);
                if (event instanceof RunEvent.RunFinished) {
                    metrics.runFinished(((RunEvent.RunFinished) event).status());
                    // recent before live goes: a reader must always find the journal somewhere
                    synchronized (recent) {
                        recent.put(id, journal);
                    }
                    live.remove(id);
                }
            });
        } catch (RunRefusedException e) {
            live.remove(id);
            if (e.why() == RunRefusedException.Why.STOPPING) {
                throw new ProblemException(Type.SHUTTING_DOWN, "the server is shutting down; no new runs");
            }
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, "all " + scheduler.maxRuns()
                    + " run places are busy (http.maxConcurrentRuns); try again later", Duration.ofSeconds(5));
        }
        metrics.runStarted();
        return run;
    }

    /** The run: from the store, or as just accepted. */
    Optional<Run> find(String id) {
        return scheduler.find(id);
    }

    List<Run> recent(int limit, String before) {
        return runLog.recent(limit, before);
    }

    /** The journal to stream: live, recently finished, or re-created from the store. */
    Optional<EventJournal> journal(String id) {
        EventJournal j = live.get(id);
        if (j != null) {
            return Optional.of(j);
        }
        synchronized (recent) {
            j = recent.get(id);
        }
        return j != null ? Optional.of(j) : runLog.find(id).map(EventJournal::of);
    }

    /**
     * Cancels a run this server is working on and waits up to {@code wait} for it to end.
     *
     * @return empty when the run is not in progress here
     */
    Optional<RunScheduler.Cancellation> cancel(String id, Duration wait) throws InterruptedException {
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
