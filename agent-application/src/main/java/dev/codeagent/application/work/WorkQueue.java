package dev.codeagent.application.work;

import dev.codeagent.domain.solving.Run;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Runs waiting for a worker, shared by every front door and worker using the same store. A store
 * that can hold work for other processes (PostgreSQL) offers this beside its run log.
 *
 * <p>A claim is held by the claiming process for as long as that process keeps beating its
 * heartbeat; when it stops (killed, cut off) the claim's lease expires and the run is either taken
 * over by the next claimer, which goes on from the last recorded attempt, or ended ERROR with a
 * reason saying so — as the store is configured. A run is never held by two live claimers at once:
 * once taken over, the store refuses the old holder's writes.
 */
public interface WorkQueue {

    /** Records {@code run} (RUNNING, usually with no attempts) and queues it, in one step. */
    void enqueue(Run run);

    /**
     * Takes the oldest waiting run for this process, or a run whose holder's lease expired when the
     * store takes those over; empty when there is none. Never hands one run to two claimers.
     */
    Optional<Claim> claim();

    /** Waits up to {@code max} for work to be queued; true when some may be waiting. */
    boolean awaitWork(Duration max) throws InterruptedException;

    /**
     * Starts following a run as any process records it: the follower's {@link Follower#await} returns
     * once the run has changed since following began or since the previous await. Close it when done.
     */
    Follower follow(String runId);

    /** Lets go of a claimed run whose end is recorded. */
    void finished(String runId);

    /**
     * Asks for a run to be cancelled: a waiting run ends CANCELLED at once; a claimed one is told to
     * the process holding it (see {@link #onCancel}), which ends it. False when the run is neither
     * waiting nor claimed.
     */
    boolean cancel(String runId, String reason);

    /**
     * Calls {@code listener} with a run id and the reason whenever a cancel is asked for a claimed run,
     * from any process; the holder acts on its own runs. Closing the result stops the calls.
     */
    AutoCloseable onCancel(BiConsumer<String, String> listener);

    /** How many runs are waiting (not yet claimed). */
    int depth();

    /** Wakes its holder when a followed run changes. */
    interface Follower extends AutoCloseable {

        /** Waits up to {@code max} for a change not yet awaited; true when there was one. */
        boolean await(Duration max) throws InterruptedException;

        @Override
        void close();
    }

    /**
     * A run handed to this process.
     *
     * @param run the run as recorded, with its attempts so far
     * @param times how many times it has been claimed, this one included (more than 1: taken over)
     */
    record Claim(Run run, int times) {
    }
}
