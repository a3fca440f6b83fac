package dev.codeagent.application.run;

import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The runs a {@link Caller} may see: where every door looks runs up, so that who sees what is decided once. A run
 * the caller may not see is answered exactly as one that does not exist (a door says "not found", never
 * "forbidden", so that a run's existence is not given away), and a door asks here before it acts on a run (a
 * cancel included).
 */
public final class VisibleRuns {

    private final RunLog runLog;
    private final Function<String, Optional<Run>> lookup;

    /** Runs as the run log has them. */
    public VisibleRuns(RunLog runLog) {
        this(runLog, runLog::find);
    }

    /** Runs as the run log has them, and those the scheduler has accepted but the loop has not recorded yet. */
    public VisibleRuns(RunLog runLog, RunScheduler scheduler) {
        this(runLog, scheduler::find);
    }

    private VisibleRuns(RunLog runLog, Function<String, Optional<Run>> lookup) {
        this.runLog = Objects.requireNonNull(runLog, "runLog");
        this.lookup = lookup;
    }

    /** The run, when there is one with that id and the caller may see it. */
    public Optional<Run> find(Caller caller, String id) {
        Objects.requireNonNull(caller, "caller");
        return lookup.apply(Objects.requireNonNull(id, "id")).filter(caller::sees);
    }

    /**
     * The caller's runs newest first (every run for an operator), at most {@code limit}, after the run
     * {@code beforeId} when that is not null; a {@code beforeId} the caller may not see gives an empty page.
     */
    public List<Run> recent(Caller caller, int limit, String beforeId) {
        return recent(caller, Set.of(), limit, beforeId);
    }

    /**
     * As {@link #recent(Caller, int, String)}, of these statuses only (none: every status): the store filters in its
     * query, so the page is as full as the caller's runs of those statuses allow.
     */
    public List<Run> recent(Caller caller, Set<RunStatus> statuses, int limit, String beforeId) {
        Objects.requireNonNull(caller, "caller");
        RunFilter mine = caller.operator() ? RunFilter.ALL : RunFilter.ownedBy(caller.owner());
        return runLog.recent(mine.withStatuses(statuses), limit, beforeId);
    }
}
