package dev.codeagent.application.work;

import java.util.Objects;
import java.util.Optional;

/**
 * What the store in use offers other processes besides the run history: the queue of runs and the queue of single
 * executions that workers share (PostgreSQL keeps both; SQLite and memory neither). The composition binds it from the
 * store {@code store.kind} chose, so a door asks for a capability instead of testing the store's class.
 */
public record StoreQueues(Optional<WorkQueue> runs, Optional<ExecutionQueue> executions) {

    /** A store only this process uses: nothing to share. */
    public static final StoreQueues NONE = new StoreQueues(Optional.empty(), Optional.empty());

    public StoreQueues {
        Objects.requireNonNull(runs, "runs");
        Objects.requireNonNull(executions, "executions");
    }
}
