package dev.codeagent.application.submit;

import java.time.Instant;
import java.util.Optional;

/**
 * Where submitted executions (asynchronous and batched) and their results are kept until their owner collects them:
 * in memory, or in the run store (SQLite, PostgreSQL), where they survive a restart. Each call is durable when it
 * returns; safe for concurrent use.
 */
public interface ExecutionResults {

    /** Records a submission, or its new status (running, done with its result), replacing what was kept under its id. */
    void save(StoredExecution execution);

    /** The submission with that id, whoever owns it; empty when there is none (or it was forgotten). */
    Optional<StoredExecution> find(String id);

    /** Forgets the submissions that ended before {@code before}; returns how many. */
    int forgetEndedBefore(Instant before);
}
