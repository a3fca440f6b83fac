package dev.codeagent.application.work;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.solve.SolveTask;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where a run a door accepts is worked, decided once for every door: with {@code sandbox.kind: queue} the whole run
 * goes to the shared store's run queue and a worker solves it (generator, sandbox and all), so the door builds
 * neither; with any other tier this process's agent loop solves it.
 *
 * <p>Why whole runs and not only their executions: a run on the queue is one claim by one worker, which keeps its
 * attempts, its deadline and its cancellation in one place, and a door that accepts work needs no model endpoint.
 */
public final class RunPlacement {

    private final Optional<WorkQueue> queue;
    private final Provider<SolveTask> solveTask;

    /**
     * @throws ConfigException with {@code sandbox.kind: queue} over a store that keeps no queue for other processes
     */
    @Inject
    public RunPlacement(CodeAgentConfig config, Optional<WorkQueue> queue, Provider<SolveTask> solveTask) {
        Objects.requireNonNull(config, "config");
        this.solveTask = Objects.requireNonNull(solveTask, "solveTask");
        boolean onQueue = QueuedSandbox.TIER.equals(config.sandbox().kind());
        if (onQueue && queue.isEmpty()) {
            throw QueuedSandbox.noSharedQueue(config.store().kind());
        }
        this.queue = onQueue ? queue : Optional.empty();
    }

    /** The queue runs go to whole, for the workers; empty when this process solves them. */
    public Optional<WorkQueue> queue() {
        return queue;
    }

    /**
     * The agent loop for runs solved here: built now when runs are solved here, so that a generator that cannot be
     * made fails at start rather than at the first run; on the queue nothing is built and asking for the loop is a
     * bug in the door (it must send the run to {@link #queue()}).
     */
    public Supplier<SolveTask> agentLoop() {
        if (queue.isPresent()) {
            return () -> {
                throw new IllegalStateException("sandbox.kind: queue: runs go whole to the workers' queue; none is solved here");
            };
        }
        SolveTask loop = solveTask.get();
        return () -> loop;
    }
}
