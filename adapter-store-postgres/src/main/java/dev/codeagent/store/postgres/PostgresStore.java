package dev.codeagent.store.postgres;

import dev.codeagent.application.work.ExecutionQueue;
import java.time.Clock;

/**
 * {@code store.kind: postgres} as one process sees it: the {@link PostgresRunLog}, the {@link PostgresWorkQueue} of
 * runs waiting for workers and the {@link ExecutionQueue} of single executions, over one connection pool and one
 * owner row (whose heartbeat is the lease of every claim this process holds). Closing the store closes all three,
 * then the connections.
 */
public final class PostgresStore implements AutoCloseable {

    private final PostgresDatabase db;
    private final PostgresRunLog runLog;
    private final PostgresWorkQueue workQueue;
    private final PostgresExecutionQueue executions;
    private final PostgresExecutionResults results;
    private final PostgresEvaluationLog evaluations;

    PostgresStore(PostgresDatabase db, Clock clock) {
        this.db = db;
        this.runLog = new PostgresRunLog(db, false, clock);
        this.workQueue = new PostgresWorkQueue(db, runLog, clock);
        this.executions = new PostgresExecutionQueue(db);
        this.results = new PostgresExecutionResults(db);
        this.evaluations = new PostgresEvaluationLog(db);
    }

    /**
     * Connects to the configured database, bringing its schema up to date.
     *
     * @throws PostgresUnavailableException when it cannot be reached or migrated
     */
    public static PostgresStore open(PostgresStoreConfig config) {
        return new PostgresStore(PostgresDatabase.open(config), Clock.systemUTC());
    }

    public PostgresRunLog runLog() {
        return runLog;
    }

    public PostgresWorkQueue workQueue() {
        return workQueue;
    }

    public ExecutionQueue executionQueue() {
        return executions;
    }

    /** Executions submitted over HTTP to be collected later, with their results: every front door of the database sees them. */
    public dev.codeagent.application.submit.ExecutionResults executionResults() {
        return results;
    }

    /** Evaluations sent over HTTP, with their reports: every front door of the database sees them. */
    public dev.codeagent.application.submit.EvaluationLog evaluationLog() {
        return evaluations;
    }

    /** Hears of every change to any run, from any process sharing the database. */
    public RunChanges changes() {
        return runLog.changes();
    }

    @Override
    public void close() {
        try (db; runLog; workQueue; executions) {
            // closed in reverse: the queues stop listening, then the connections go
        }
    }
}
