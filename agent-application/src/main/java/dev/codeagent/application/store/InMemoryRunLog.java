package dev.codeagent.application.store;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A run log that lives in memory only: store kind {@code memory}, for embedding and tests. It refuses
 * what the other stores refuse (see {@code RunLogContractTest}), so code tested against it behaves the
 * same on a real store.
 */
public final class InMemoryRunLog implements RunLog {

    /** The most runs {@link #recent(RunFilter, int, String)} returns at once, as for every store. */
    public static final int MAX_PAGE = 1000;

    private final Map<String, Run> runs = new LinkedHashMap<>();

    @Override
    public synchronized void started(Run run) {
        Objects.requireNonNull(run, "run");
        if (runs.containsKey(run.id())) {
            throw new IllegalStateException("run " + run.id() + " exists already");
        }
        Set<Integer> numbers = new HashSet<>();
        for (Attempt a : run.attempts()) {
            if (!numbers.add(a.number())) {
                throw new IllegalArgumentException("run " + run.id() + " has two attempts numbered " + a.number());
            }
        }
        runs.put(run.id(), run);
    }

    @Override
    public synchronized void attemptFinished(String runId, Attempt attempt) {
        Objects.requireNonNull(attempt, "attempt");
        Run run = get(runId);
        if (run.attempts().stream().anyMatch(a -> a.number() == attempt.number())) {
            throw new IllegalStateException("run " + runId + " already has an attempt " + attempt.number());
        }
        runs.put(runId, run.withAttempt(attempt));
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
    public synchronized List<Run> recent(RunFilter filter, int limit, String beforeId) {
        Objects.requireNonNull(filter, "filter");
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE + ", was " + limit);
        }
        // the cursor is looked for among the owner's runs of any status, as the SQL stores do
        List<Run> owned = new ArrayList<>(runs.values().stream().filter(filter::owns).toList());
        owned.sort(Comparator.comparing(Run::startedAt).thenComparing(Run::id).reversed());
        int from = 0;
        if (beforeId != null) {
            from = owned.size();
            for (int i = 0; i < owned.size(); i++) {
                if (owned.get(i).id().equals(beforeId)) {
                    from = i + 1;
                    break;
                }
            }
        }
        return owned.subList(from, owned.size()).stream().filter(filter::selects).limit(limit).toList();
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
        Objects.requireNonNull(runId, "runId");
        Run r = runs.get(runId);
        if (r == null) {
            throw new NoSuchElementException("no run " + runId);
        }
        return r;
    }
}
