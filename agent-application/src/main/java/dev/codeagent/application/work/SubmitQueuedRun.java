package dev.codeagent.application.work;

import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.Task;
import java.time.Clock;
import java.time.Duration;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A front door's side of the queue: puts a task on it as a new run and follows the run, as the
 * workers record it, to its end — woken by the store when the run changes, not by polling.
 */
public final class SubmitQueuedRun {

    /** The longest a follower sleeps without hearing from the store before looking anyway. */
    private static final Duration LOOK_AT_LEAST_EVERY = Duration.ofSeconds(5);

    private final WorkQueue queue;
    private final RunLog runLog;
    private final Clock clock;

    public SubmitQueuedRun(WorkQueue queue, RunLog runLog, Clock clock) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.runLog = Objects.requireNonNull(runLog, "runLog");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Queues the task as a new run; returns it as recorded (RUNNING, no attempts). */
    public Run submit(Task task) {
        return submit(task, null);
    }

    /** Queues the task as a new run of {@code owner}'s (null: no one's), which its worker keeps; returns it as recorded. */
    public Run submit(Task task, String owner) {
        Run run = Run.started(SolveTask.newRunId(), Objects.requireNonNull(task, "task"), clock.instant(), owner);
        queue.enqueue(run);
        return run;
    }

    /** Runs waiting for a worker now, this one included once submitted. */
    public int waiting() {
        return queue.depth();
    }

    /**
     * Asks for the run to be cancelled: it ends CANCELLED at once if no worker has it yet, else its worker is told.
     *
     * @return whether the run was still there to cancel
     */
    public boolean cancel(String runId, String reason) {
        return queue.cancel(runId, reason);
    }

    /**
     * Waits until the run has ended and returns it; {@code progress} hears the run each time it is
     * seen to have changed (more attempts).
     *
     * @throws InterruptedException when the waiting thread is interrupted (the run goes on)
     */
    public Run awaitEnd(String runId, Consumer<Run> progress) throws InterruptedException {
        // follow before the first look, so that a change between the look and the wait is not missed
        try (WorkQueue.Follower changes = queue.follow(runId)) {
            int seen = -1;
            while (true) {
                Run now = runLog.find(runId).orElseThrow(() -> new NoSuchElementException("no run " + runId));
                if (now.attempts().size() != seen) {
                    seen = now.attempts().size();
                    progress.accept(now);
                }
                if (now.status().isFinal()) {
                    return now;
                }
                changes.await(LOOK_AT_LEAST_EVERY);
            }
        }
    }
}
