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
     * Runs newest first, at most {@code limit} (1 to 1000), starting after the run with id
     * {@code beforeId} when that is not null (for paging).
     */
    List<Run> recent(int limit, String beforeId);

    /**
     * As {@link #recent}, only the runs whose {@linkplain Run#owner owner} is {@code owner}: a page of
     * one caller's runs is as full as the store has them, and {@code beforeId} must name one of that
     * caller's runs (another gives an empty page).
     */
    List<Run> recentOwnedBy(String owner, int limit, String beforeId);

    /**
     * Marks as ERROR, with the given reason, the runs still RUNNING whose owning process (the one that
     * {@linkplain #started started} them) is no longer alive: it crashed or was killed before the run
     * ended. Runs of live processes, this one or another sharing the store, are left alone, so every
     * front door may call it at start without cutting off another's runs. A store that cannot tell
     * whether a run's owner is alive leaves the run RUNNING. Returns how many were marked.
     */
    int markInterrupted(String reason);
}
