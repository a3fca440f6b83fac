package dev.codeagent.application.work;

import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.solve.StopReason;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunStatus;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker: claims queued runs one at a time and works each through {@link SolveTask#resume}, from
 * its last recorded attempt, until told to stop. A cancel asked from any front door interrupts the
 * run it names if this worker holds it; stopping the worker (its thread interrupted) ends the run in
 * hand ERROR, saying the worker stopped.
 */
public final class ProcessQueuedRuns {

    private static final Logger log = LoggerFactory.getLogger(ProcessQueuedRuns.class);

    private final WorkQueue queue;
    private final SolveTask solveTask;
    private final Duration idleWait;
    private final java.util.concurrent.atomic.AtomicLong claims = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong claimNanos = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong takeovers = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong worked = new java.util.concurrent.atomic.AtomicLong();

    /**
     * What this worker has done so far, for its metrics.
     *
     * @param claims runs claimed
     * @param claimSeconds time spent in the claims that got a run, in all (a claim is one transaction on the store)
     * @param takeovers claimed runs whose earlier worker had lost its lease
     * @param worked runs worked to their end here
     */
    public record Stats(long claims, double claimSeconds, long takeovers, long worked) {
    }

    public Stats stats() {
        return new Stats(claims.get(), claimNanos.get() / 1e9, takeovers.get(), worked.get());
    }

    public ProcessQueuedRuns(WorkQueue queue, SolveTask solveTask, Duration idleWait) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.solveTask = Objects.requireNonNull(solveTask, "solveTask");
        this.idleWait = Objects.requireNonNull(idleWait, "idleWait");
    }

    /** Works queued runs until {@code stop} says so or the thread is interrupted; returns how many were worked. */
    public int run(BooleanSupplier stop, RunListener listener) {
        return loop(stop, false, listener);
    }

    /** Works queued runs until none is waiting (or the thread is interrupted); returns how many were worked. */
    public int drain(RunListener listener) {
        return loop(() -> false, true, listener);
    }

    private int loop(BooleanSupplier stop, boolean untilIdle, RunListener listener) {
        int worked = 0;
        Thread me = Thread.currentThread();
        AtomicReference<String> current = new AtomicReference<>();
        AtomicReference<String> cancelReason = new AtomicReference<>();
        try (AutoCloseable cancels = queue.onCancel((runId, reason) -> {
            synchronized (current) { // so that no cancel lands after its run is over
                if (runId.equals(current.get())) {
                    cancelReason.set(reason);
                    me.interrupt();
                }
            }
        })) {
            while (!stop.getAsBoolean() && !me.isInterrupted()) {
                long asked = System.nanoTime();
                var claim = queue.claim();
                if (claim.isPresent()) {
                    claims.incrementAndGet();
                    claimNanos.addAndGet(System.nanoTime() - asked);
                }
                if (claim.isEmpty()) {
                    if (untilIdle) {
                        break;
                    }
                    queue.awaitWork(idleWait);
                    continue;
                }
                Run run = claim.get().run();
                cancelReason.set(null);
                synchronized (current) {
                    current.set(run.id());
                }
                if (claim.get().times() > 1) {
                    takeovers.incrementAndGet();
                    log.info("taking over run {} after {} attempts (its worker lost its lease)", run.id(), run.attempts().size());
                }
                // asked for only when the run was stopped: with no cancel asked, the worker itself is stopping (the
                // sandbox may have consumed the interrupt that said so, killing the program)
                java.util.concurrent.atomic.AtomicBoolean workerStopped = new java.util.concurrent.atomic.AtomicBoolean();
                try {
                    solveTask.resume(run, listener, () -> {
                        String why = cancelReason.get();
                        if (why == null) {
                            workerStopped.set(true);
                        }
                        return why != null ? new StopReason(RunStatus.CANCELLED, why)
                                : new StopReason(RunStatus.ERROR, "the worker stopped while working on the run");
                    });
                } finally {
                    synchronized (current) {
                        current.set(null);
                    }
                }
                // a cancel's interrupt was for that run only; a stop's is kept for the loop, after the run is let go
                boolean interrupted = Thread.interrupted();
                boolean stopping = (interrupted || workerStopped.get()) && cancelReason.get() == null;
                queue.finished(run.id());
                worked++;
                this.worked.incrementAndGet();
                if (stopping) {
                    me.interrupt();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (e instanceof RuntimeException) {
                throw (RuntimeException) e;
            }
            throw new IllegalStateException(e.getMessage(), e);
        }
        return worked;
    }
}
