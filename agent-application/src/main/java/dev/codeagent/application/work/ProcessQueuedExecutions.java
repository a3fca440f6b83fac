package dev.codeagent.application.work;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's execution side: {@code places} threads each claim a queued execution, run it through this machine's
 * {@link ExecuteCode} (its sandbox, code policy and places) and record the result for the submitter. An execution
 * its submitter withdraws while it runs is stopped (its thread interrupted, which kills the program).
 */
public final class ProcessQueuedExecutions {

    private static final Logger log = LoggerFactory.getLogger(ProcessQueuedExecutions.class);

    private final ExecutionQueue queue;
    private final ExecuteCode executeCode;
    private final int places;
    private final Duration idleWait;
    private final AtomicLong claims = new AtomicLong();
    private final AtomicLong claimNanos = new AtomicLong();
    private final AtomicLong takeovers = new AtomicLong();
    private final AtomicLong worked = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    /**
     * What this worker's execution side has done so far, for its metrics.
     *
     * @param claims executions claimed
     * @param claimSeconds time spent in the claims that got one
     * @param takeovers claimed executions whose earlier worker had lost its lease
     * @param worked results recorded
     * @param refused results the queue refused (withdrawn or taken over meanwhile)
     */
    public record Stats(long claims, double claimSeconds, long takeovers, long worked, long refused) {
    }

    /**
     * @param places executions run at once (at most the executor's own places)
     * @param idleWait the longest wait for new work between looks when nothing is announced
     */
    public ProcessQueuedExecutions(ExecutionQueue queue, ExecuteCode executeCode, int places, Duration idleWait) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
        if (places < 1) {
            throw new IllegalArgumentException("places must be at least 1, was " + places);
        }
        this.places = Math.min(places, executeCode.maxConcurrent());
        this.idleWait = Objects.requireNonNull(idleWait, "idleWait");
    }

    public Stats stats() {
        return new Stats(claims.get(), claimNanos.get() / 1e9, takeovers.get(), worked.get(), refused.get());
    }

    public int places() {
        return places;
    }

    /**
     * Runs queued executions on {@code places} threads until {@code stop} says so or the calling thread is
     * interrupted (which stops the programs in hand; their executions are claimed again once this worker's lease
     * is gone); with {@code untilIdle}, until none is waiting. Returns how many results were recorded.
     */
    public long run(BooleanSupplier stop, boolean untilIdle) {
        Map<String, Thread> running = new ConcurrentHashMap<>();
        Set<String> withdrawn = ConcurrentHashMap.newKeySet();
        // the sandbox consumes the interrupt that stops a program: the loops need to hear of the stop from elsewhere
        java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();
        BooleanSupplier stopped = () -> stopping.get() || stop.getAsBoolean();
        long before = worked.get();
        List<Thread> threads = new ArrayList<>();
        try (AutoCloseable withdrawals = queue.onWithdrawn(id -> {
            Thread t = running.get(id);
            if (t != null) {
                withdrawn.add(id);
                t.interrupt();
            }
        })) {
            for (int i = 0; i < places; i++) {
                Thread t = new Thread(() -> loop(stopped, untilIdle, running, withdrawn), "codeagent-worker-exec-" + (i + 1));
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            stopping.set(true);
            threads.forEach(Thread::interrupt);
            for (Thread t : threads) {
                try {
                    t.join(5_000);
                } catch (InterruptedException again) {
                    break;
                }
            }
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            stopping.set(true);
            threads.forEach(Thread::interrupt);
            throw e instanceof RuntimeException ? (RuntimeException) e : new IllegalStateException(e.getMessage(), e);
        }
        return worked.get() - before;
    }

    private void loop(BooleanSupplier stop, boolean untilIdle, Map<String, Thread> running, Set<String> withdrawn) {
        Thread me = Thread.currentThread();
        while (!stop.getAsBoolean() && !me.isInterrupted()) {
            long asked = System.nanoTime();
            ExecutionQueue.Claimed claim;
            try {
                var claimed = queue.claimExecution();
                if (claimed.isEmpty()) {
                    if (untilIdle) {
                        return;
                    }
                    queue.awaitExecutions(idleWait);
                    continue;
                }
                claim = claimed.get();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                log.warn("could not claim a queued execution: {}", e.getMessage());
                if (!pause()) {
                    return;
                }
                continue;
            }
            claims.incrementAndGet();
            claimNanos.addAndGet(System.nanoTime() - asked);
            if (claim.times() > 1) {
                takeovers.incrementAndGet();
            }
            running.put(claim.id(), me);
            Execution result;
            try {
                result = execute(claim);
            } finally {
                running.remove(claim.id());
            }
            // a withdrawal's interrupt was for that execution only; a stop's is kept for this loop
            boolean interrupted = Thread.interrupted();
            boolean wasWithdrawn = withdrawn.remove(claim.id());
            try {
                if (result != null) {
                    if (queue.complete(claim.id(), result)) {
                        worked.incrementAndGet();
                    } else {
                        refused.incrementAndGet();
                    }
                } else if (!wasWithdrawn) {
                    // stopping (or the sandbox gave up on it): hand it back now rather than when this worker's lease runs out
                    queue.release(claim.id());
                }
            } catch (RuntimeException e) {
                // not recorded: once this worker's lease goes, another claims the execution again
                log.warn("could not record queued execution {}: {}", claim.id(), e.getMessage());
            }
            if (interrupted && !wasWithdrawn) {
                me.interrupt();
            }
        }
    }

    /** The execution's result, or null when it was stopped (withdrawn, or this worker stopping). */
    private Execution execute(ExecutionQueue.Claimed claim) {
        try {
            return executeCode.executeEach(claim.request());
        } catch (ExecutionCancelledException e) {
            return null;
        } catch (InvalidRequestException e) {
            return Execution.sandboxError("a worker could not run it: " + e.getMessage(), Duration.ZERO,
                    executeCode.sandbox().isolation());
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(200);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
