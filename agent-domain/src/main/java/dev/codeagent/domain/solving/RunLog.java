package dev.codeagent.domain.solving;

import java.util.List;
import java.util.Optional;

/**
 * Where runs are kept. Each call is durable when it returns: a process killed right after it loses
 * nothing that call wrote, and never leaves a half-written record. Safe for concurrent use.
 */
public interface RunLog {

    /** Records a new run (status RUNNING, no attempts), with its owner. */
    void started(Run run);

    /** Appends one finished attempt to a RUNNING run. */
    void attemptFinished(String runId, Attempt attempt);

    /** Records that a run reached a final status. */
    void ended(String runId, RunStatus status, java.time.Instant endedAt, String reason);

    /** The run with all its attempts, or empty when there is none with that id. */
    Optional<Run> find(String runId);

    /**
     * The runs the filter selects, newest first (by start time, then id), at most {@code limit} (1 to 1000), starting
     * after the run with id {@code beforeId} when that is not null (for paging). Filtered in the store's query, so a
     * page is as full as the store has such runs. {@code beforeId} must name a run of the filter's owner (any run
     * when the filter has none), whatever its status: a run that was RUNNING on the page before still pages on
     * after it ended. An unknown {@code beforeId}, or another owner's, gives an empty page.
     *
     * @throws IllegalArgumentException when {@code limit} is not between 1 and 1000
     */
    List<Run> recent(RunFilter filter, int limit, String beforeId);

    /** Every run, as {@link #recent(RunFilter, int, String)} with {@link RunFilter#ALL}. */
    default List<Run> recent(int limit, String beforeId) {
        return recent(RunFilter.ALL, limit, beforeId);
    }

    /**
     * One owner's runs, as {@link #recent(RunFilter, int, String)} with {@link RunFilter#ownedBy}: a page of one
     * caller's runs is as full as the store has them, and {@code beforeId} must name one of that caller's runs
     * (another gives an empty page).
     */
    default List<Run> recentOwnedBy(String owner, int limit, String beforeId) {
        return recent(RunFilter.ownedBy(owner), limit, beforeId);
    }

    /**
     * Marks as ERROR, with the given reason, the runs still RUNNING whose owning process (the one that
     * {@linkplain #started started} them) is no longer alive: it crashed or was killed before the run
     * ended. Runs of live processes, this one or another sharing the store, are left alone, so every
     * front door may call it at start without cutting off another's runs. A store that cannot tell
     * whether a run's owner is alive leaves the run RUNNING. Returns how many were marked.
     */
    int markInterrupted(String reason);
}
