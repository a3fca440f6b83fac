package dev.codeagent.application.store;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;

/** A run log that lives in memory only: store kind {@code memory}, for embedding and tests. */
public final class InMemoryRunLog implements RunLog {

    private final Map<String, Run> runs = new LinkedHashMap<>();

    @Override
    public synchronized void started(Run run) {
        if (runs.putIfAbsent(run.id(), run) != null) {
            throw new IllegalStateException("run " + run.id() + " exists already");
        }
    }

    @Override
    public synchronized void attemptFinished(String runId, Attempt attempt) {
        runs.put(runId, get(runId).withAttempt(attempt));
    }

    @Override
    public synchronized void ended(String runId, RunStatus status, Instant endedAt, String reason) {
        runs.put(runId, get(runId).ended(status, endedAt, reason));
    }

    @Override
    public synchronized Optional<Run> find(String runId) {
        return Optional.ofNullable(runs.get(runId));
    }

    @Override
    public synchronized List<Run> recent(int limit, String beforeId) {
        List<Run> all = new ArrayList<>(runs.values());
        all.sort(Comparator.comparing(Run::startedAt).thenComparing(Run::id).reversed());
        int from = 0;
        if (beforeId != null) {
            from = all.size();
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).id().equals(beforeId)) {
                    from = i + 1;
                    break;
                }
            }
        }
        return List.copyOf(all.subList(Math.min(from, all.size()), Math.min(all.size(), from + limit)));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Marks nothing and returns 0: every run here was started by this process, which is alive, and
     * the log dies with it.
     */
    @Override
    public int markInterrupted(String reason) {
        Objects.requireNonNull(reason, "reason");
        return 0;
    }

    private Run get(String runId) {
        Run r = runs.get(runId);
        if (r == null) {
            throw new NoSuchElementException("no run " + runId);
        }
        return r;
    }
}
