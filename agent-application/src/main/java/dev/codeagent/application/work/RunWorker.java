package dev.codeagent.application.work;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Sandbox;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A worker of the shared store: claims queued runs and solves each from its last recorded attempt, and meanwhile runs
 * queued single executions on every execution place this machine has ({@code sandbox.maxConcurrent}), until stopped.
 * What it does is counted in the composition's {@link MeterRegistry}, which a door exports (Prometheus, for
 * {@code codeagent worker --metrics-port}).
 *
 * <p>Made by the composition: the queues are the capability of the store {@code store.kind} chose, and a store that
 * keeps none is refused before any sandbox or generator is built.
 */
public final class RunWorker {

    /** How long an idle loop waits for the store to announce work before it looks again. */
    private static final Duration IDLE_WAIT = Duration.ofSeconds(5);
    /** How long a stop waits for the execution side to hand back what it holds. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);

    /** What one {@link #work} did. */
    public record Worked(int runs, long executions) {
    }

    private final WorkQueue queue;
    private final ExecutionQueue executionQueue;
    private final Isolation isolation;
    private final ProcessQueuedRuns runs;
    private final ProcessQueuedExecutions executions;
    private volatile Thread working;
    private volatile boolean stopped;

    /**
     * Builds the sandbox (so a worker whose sandbox cannot run here refuses to start rather than claim runs only to
     * fail them) and the agent loop, after checking the store keeps queues.
     *
     * @throws ConfigException when the store {@code store.kind} names keeps no queue for other processes, or when
     *     {@code sandbox.kind} is {@code queue}
     */
    @Inject
    public RunWorker(StoreQueues queues, CodeAgentConfig config, Provider<Sandbox> sandbox,
            Provider<ExecuteCode> executeCode, Provider<SolveTask> solveTask, MeterRegistry meters) {
        this.queue = queues.runs().orElseThrow(() -> noQueue(config));
        this.executionQueue = queues.executions().orElseThrow(() -> noQueue(config));
        if (QueuedSandbox.TIER.equals(config.sandbox().kind())) {
            // its executions would go back to the queue it claims them from, round and round
            throw new ConfigException("sandbox.kind: queue: a worker runs programs in a sandbox of its own;"
                    + " set sandbox.kind: process or docker");
        }
        this.isolation = sandbox.get().isolation();
        this.runs = new ProcessQueuedRuns(queue, solveTask.get(), IDLE_WAIT);
        this.executions = new ProcessQueuedExecutions(executionQueue, executeCode.get(), config.sandbox().maxConcurrent(),
                IDLE_WAIT);
        register(meters);
    }

    private static ConfigException noQueue(CodeAgentConfig config) {
        return new ConfigException("store.kind " + config.store().kind()
                + " keeps no queue for other processes; a worker needs store.kind: postgres");
    }

    /** The isolation every program this worker runs gets (what it lacks, under {@code sandbox.isolation: best-effort}). */
    public Isolation isolation() {
        return isolation;
    }

    /** Runs waiting in the store now. */
    public int runsWaiting() {
        return queue.depth();
    }

    /** Single executions waiting in the store now. */
    public int executionsWaiting() {
        return executionQueue.executionsWaiting();
    }

    /** How many executions this worker runs at once. */
    public int places() {
        return executions.places();
    }

    /**
     * Works runs on the calling thread and executions beside it until {@link #stop()} (or an interrupt of the calling
     * thread); with {@code untilIdle}, until nothing is waiting. A run in hand when stopped ends ERROR saying the worker
     * stopped; executions in hand are claimed again by another worker once this one's lease is gone. Returns with the
     * interrupt that stopped it cleared: the stop was heard and acted on, and closing the store must not be cut short.
     */
    public Worked work(boolean untilIdle) {
        working = Thread.currentThread();
        if (stopped) {
            working = null;
            return new Worked(0, 0);
        }
        long[] executed = new long[1];
        // a stop asked before the loops began is heard by them at once
        Thread executionSide = new Thread(() -> executed[0] = executions.run(() -> stopped, untilIdle),
                "codeagent-worker-executions");
        executionSide.start();
        try {
            int worked = untilIdle ? runs.drain(event -> { }) : runs.run(() -> stopped, event -> { });
            if (!untilIdle) {
                executionSide.interrupt();
            }
            joinQuietly(executionSide);
            return new Worked(worked, executed[0]);
        } finally {
            executionSide.interrupt();
            working = null;
            Thread.interrupted();
        }
    }

    /** Stops {@link #work} (from a shutdown hook or another thread); it returns once what it holds is handed back. */
    public void stop() {
        stopped = true;
        Thread t = working;
        if (t != null) {
            t.interrupt();
        }
    }

    /** Waits for the execution side to hand back what it holds; a second stop cuts the wait short. */
    private static void joinQuietly(Thread t) {
        // a stop leaves this thread interrupted: wait all the same, then keep the flag
        boolean interrupted = Thread.interrupted();
        try {
            t.join(STOP_GRACE.toMillis());
        } catch (InterruptedException e) {
            t.interrupt();
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The worker's meters, under the names its Prometheus scrape has always had ({@code codeagent_worker_claims_total},
     * {@code codeagent_worker_claim_seconds_count}/{@code _sum}, {@code codeagent_queue_depth}, …). The queue gauges
     * read the store per scrape; a store that cannot be read shows NaN, said so rather than guessed.
     */
    private void register(MeterRegistry meters) {
        Gauge.builder("codeagent.queue.depth", queue, WorkQueue::depth)
                .description("Runs queued in the shared store, waiting for a worker").register(meters);
        counter(meters, "codeagent.worker.claims", "Runs this worker claimed", r -> r.runs.stats().claims());
        FunctionTimer.builder("codeagent.worker.claim", this, r -> r.runs.stats().claims(), r -> r.runs.stats().claimSeconds(),
                        TimeUnit.SECONDS)
                .description("Time the claims that got a run took (one store transaction each)").register(meters);
        counter(meters, "codeagent.worker.takeovers", "Runs claimed after their earlier worker lost its lease",
                r -> r.runs.stats().takeovers());
        counter(meters, "codeagent.worker.runs.worked", "Runs worked to their end by this worker", r -> r.runs.stats().worked());

        Gauge.builder("codeagent.queue.executions.waiting", executionQueue, ExecutionQueue::executionsWaiting)
                .description("Single executions queued in the shared store, waiting for a worker").register(meters);
        counter(meters, "codeagent.worker.execution.claims", "Queued executions this worker claimed",
                r -> r.executions.stats().claims());
        FunctionTimer.builder("codeagent.worker.execution.claim", this, r -> r.executions.stats().claims(),
                        r -> r.executions.stats().claimSeconds(), TimeUnit.SECONDS)
                .description("Time the claims that got an execution took").register(meters);
        counter(meters, "codeagent.worker.execution.takeovers", "Executions claimed after their earlier worker lost its lease",
                r -> r.executions.stats().takeovers());
        counter(meters, "codeagent.worker.executions.worked", "Executions whose result this worker recorded",
                r -> r.executions.stats().worked());
        counter(meters, "codeagent.worker.executions.refused", "Results refused: withdrawn or taken over meanwhile",
                r -> r.executions.stats().refused());
    }

    private void counter(MeterRegistry meters, String name, String description, ToDoubleFunction<RunWorker> read) {
        FunctionCounter.builder(name, this, read).description(description).register(meters);
    }
}
