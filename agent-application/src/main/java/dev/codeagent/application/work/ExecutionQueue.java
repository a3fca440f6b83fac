package dev.codeagent.application.work;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Single executions waiting for a worker, shared by every process using the same store: a submitter
 * (an evaluation, a front door) queues requests and takes their results back; workers claim them,
 * run them in their own sandbox and record the result. A store that holds work for other processes
 * (PostgreSQL) offers this beside its {@link WorkQueue} of runs.
 *
 * <p>A claim is held for as long as its worker's heartbeat is fresh. An execution whose worker stopped
 * beating is claimable again and runs from the start (an execution has nothing to resume); once it is,
 * the old worker's result is refused, so one result per execution ever reaches its submitter. Work
 * whose submitter stopped beating is never started (nobody would read its result) and is cleared away.
 */
public interface ExecutionQueue {

    /**
     * Queues {@code request} under {@code id}, chosen by the caller (so that its result can be expected
     * before this returns). Submitting the same id twice queues it once.
     *
     * @param id 1 to 64 characters: letters, digits, '-' and '_'
     * @throws IllegalArgumentException when the id is not one
     */
    void submit(String id, ExecutionRequest request);

    /**
     * Takes the results of this process's executions that finished since the last take, by id; each
     * result is handed out once and then forgotten by the queue.
     */
    Map<String, Execution> takeResults();

    /** Waits up to {@code max} for one of this process's executions to finish; true when one may have. */
    boolean awaitResults(Duration max) throws InterruptedException;

    /**
     * Withdraws executions this process submitted: waiting ones never run, running ones are stopped by
     * their worker, and no result of theirs comes back. Ids not (or no longer) queued are ignored.
     */
    void withdraw(Collection<String> ids);

    /**
     * Takes the oldest waiting execution for this process to run, or one whose worker lost its lease;
     * empty when there is none. Never hands one execution to two live workers.
     */
    Optional<Claimed> claimExecution();

    /** Waits up to {@code max} for executions to be queued; true when some may be waiting. */
    boolean awaitExecutions(Duration max) throws InterruptedException;

    /**
     * Records the result of a claimed execution for its submitter.
     *
     * @return false when the execution is no longer this process's: withdrawn, or taken over after a lost lease
     */
    boolean complete(String id, Execution result);

    /** Hands a claimed execution back unrun (its worker is stopping), to be claimed again at once. */
    void release(String id);

    /**
     * Calls {@code listener} with the id of every execution this process holds that its submitter withdrew
     * (from any process), so the worker can stop it. Closing the result stops the calls.
     */
    AutoCloseable onWithdrawn(Consumer<String> listener);

    /** How many executions are waiting (not yet claimed). */
    int executionsWaiting();

    /**
     * An execution handed to this process.
     *
     * @param id the submitter's id for it
     * @param request what to run
     * @param times how many times it has been claimed, this one included (more than 1: its earlier worker lost its lease)
     */
    record Claimed(String id, ExecutionRequest request, int times) {
    }
}
