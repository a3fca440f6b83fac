package dev.codeagent.application.run;

import dev.codeagent.domain.solving.RunLog;
import java.util.Objects;

/**
 * Crash recovery, done by every front door when it starts: runs still RUNNING whose process is gone
 * end ERROR with {@link #REASON}. The same reason marks runs a graceful stop cut off
 * ({@link RunScheduler#stopAll}), so a client sees one answer whichever way the process went away.
 */
public final class RecoverInterruptedRuns {

    /** Why a run ended when no process was left to finish it. */
    public static final String REASON = "interrupted: the process ended before the run finished";

    private final RunLog runLog;

    public RecoverInterruptedRuns(RunLog runLog) {
        this.runLog = Objects.requireNonNull(runLog, "runLog");
    }

    /** Marks the runs whose owning process has died; returns how many. See {@link RunLog#markInterrupted}. */
    public int recover() {
        return runLog.markInterrupted(REASON);
    }
}
