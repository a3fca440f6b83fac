package dev.codeagent.cli;

import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.eval.RunBenchmark;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.work.SubmitQueuedRun;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.time.Clock;
import java.util.Optional;

/**
 * The application services the commands use, as {@link CliModule} composes them for one configuration. Each is built
 * when first asked for (providers), so a command builds only what it uses: {@code runs} never starts a sandbox,
 * {@code exec} never a generator.
 */
public final class CliServices {

    private final Provider<Optional<SubmitQueuedRun>> queuedRuns;
    private final Provider<RecoverInterruptedRuns> recovery;
    private final Provider<ExecuteCode> executeCode;
    private final Provider<CodeGenerator> generator;
    private final Provider<CircuitBreakerRegistry> breakers;
    private final SolveConfig solve;
    private final Clock clock;

    @Inject
    CliServices(Provider<Optional<SubmitQueuedRun>> queuedRuns, Provider<RecoverInterruptedRuns> recovery,
            Provider<ExecuteCode> executeCode, Provider<CodeGenerator> generator, Provider<CircuitBreakerRegistry> breakers,
            SolveConfig solve, Clock clock) {
        this.queuedRuns = queuedRuns;
        this.recovery = recovery;
        this.executeCode = executeCode;
        this.generator = generator;
        this.breakers = breakers;
        this.solve = solve;
        this.clock = clock;
    }

    /** Whole runs handed to the workers, when the store in use keeps a run queue. */
    public Optional<SubmitQueuedRun> queuedRuns() {
        return queuedRuns.get();
    }

    /** Marks the runs a process that died left RUNNING; returns how many. */
    public int recoverInterruptedRuns() {
        return recovery.get().recover();
    }

    /**
     * A benchmark over the configured executor (this machine's sandbox, or the workers' with {@code sandbox.kind:
     * queue}) with {@code limits} per sample; a generated sample's loop records to the benchmark's own log, with a
     * circuit breaker of its own (those runs are no one's history).
     */
    public RunBenchmark benchmark(ResourceLimits limits) {
        ExecuteCode executor = executeCode.get();
        return new RunBenchmark(executor,
                recordTo -> new SolveTask(generator.get(), executor, recordTo, solve, clock, breakers.get()), limits);
    }
}
