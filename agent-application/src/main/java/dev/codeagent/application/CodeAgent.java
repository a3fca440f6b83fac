package dev.codeagent.application;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.inject.Composition;
import dev.codeagent.application.inject.EmbeddingModule;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.GeneratorProvider;
import dev.codeagent.application.spi.RunLogProvider;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * The composed application: the one path by which the CLI, the HTTP server and embedding programs
 * get a working executor or agent from a config.
 *
 * <pre>{@code
 * try (CodeAgent agent = CodeAgent.create(new ConfigLoader().parse("sandbox: {kind: process}"))) {
 *     Execution e = agent.executeCode().execute(ExecutionRequest.of(Language.PYTHON, "print(1)"));
 * }
 * }</pre>
 *
 * <p>A thin facade over the one composition root ({@link Composition}, a Guice injector): adapter modules are found
 * on the classpath through {@link ServiceLoader} (see {@link Adapters}), each registering its implementation under a
 * key, and the config picks one by key. An unknown sandbox key fails at creation with the list of known ones; the
 * sandbox, the generator and the run log are built when first asked for, so an executor needs no generator adapter
 * and reading the run history needs no working sandbox. A program that composes with Guice itself installs
 * {@link dev.codeagent.application.inject.CodeAgentModules} instead.
 */
public final class CodeAgent implements AutoCloseable {

    private final CodeAgentConfig config;
    private final Composition composition;

    private CodeAgent(CodeAgentConfig config, Composition composition) {
        this.config = config;
        this.composition = composition;
    }

    /** Composes an agent from the config with every adapter on the classpath. */
    public static CodeAgent create(CodeAgentConfig config) {
        return builder(config).build();
    }

    /** Composes an agent from {@code $CODEAGENT_CONFIG} / {@code ~/.codeagent/config.yaml} and the environment. */
    public static CodeAgent fromEnvironment() {
        return create(new ConfigLoader().loadFromEnvironment());
    }

    public static Builder builder(CodeAgentConfig config) {
        return new Builder(config);
    }

    /** Builds a {@link CodeAgent}; lets an embedding program supply its own adapters, generator or run log. */
    public static final class Builder {
        private final CodeAgentConfig config;
        private final List<SandboxProvider<?>> sandboxes = new ArrayList<>();
        private final List<GeneratorProvider<?>> generators = new ArrayList<>();
        private final List<RunLogProvider<?>> runLogs = new ArrayList<>();
        private boolean discover = true;
        private CodeGenerator generator;
        private RunLog runLog;
        private Supplier<? extends Sandbox> sandbox;

        private Builder(CodeAgentConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** Adds a sandbox tier besides those on the classpath; it wins over one of the same key. */
        public Builder provider(SandboxProvider<?> provider) {
            sandboxes.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** Adds a generator besides those on the classpath; it wins over one of the same key. */
        public Builder provider(GeneratorProvider<?> provider) {
            generators.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** Adds a run store besides those on the classpath; it wins over one of the same key. */
        public Builder provider(RunLogProvider<?> provider) {
            runLogs.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /** Uses only the providers added here (and the in-memory store), not the classpath's adapter modules. */
        public Builder withoutDiscovery() {
            discover = false;
            return this;
        }

        /** Uses this generator whatever {@code generator.kind} says. */
        public Builder generator(CodeGenerator codeGenerator) {
            this.generator = codeGenerator;
            return this;
        }

        /** Uses this run log whatever {@code store.kind} says. */
        public Builder runLog(RunLog log) {
            this.runLog = log;
            return this;
        }

        /** Uses the sandbox {@code make} returns, made on first need, whatever {@code sandbox.kind} says; the caller closes it. */
        public Builder sandbox(Supplier<? extends Sandbox> make) {
            this.sandbox = Objects.requireNonNull(make, "make");
            return this;
        }

        /**
         * @throws ConfigException when the configured sandbox key is unknown
         */
        public CodeAgent build() {
            // the store's queues and the worker are the application's own: bound with or without discovery
            List<AdapterModule> found = discover ? Adapters.discover().modules()
                    : List.of(new dev.codeagent.application.work.WorkModule(), new dev.codeagent.application.session.SessionModule());
            return new CodeAgent(config, Composition.create(config, found,
                    new EmbeddingModule.Embedding(sandboxes, generators, runLogs, generator, runLog, sandbox)));
        }
    }

    public CodeAgentConfig config() {
        return config;
    }

    /**
     * The configured sandbox, built (and its host checked) on first call: the tier itself, which runs a compiled
     * language's program only as the stages {@link #executeCode()} compiles it into (its sandbox is this one under
     * {@code CompilingSandbox}); run programs through that.
     *
     * @throws dev.codeagent.domain.execution.SandboxUnavailableException when it cannot run on this host
     */
    public Sandbox sandbox() {
        return composition.get(Sandbox.class);
    }

    /**
     * Opens a session (a real kernel kept across cells) in a sandbox of its own of the configured tier. The caller
     * closes it; closing this agent closes the sandbox and with it every session still open.
     *
     * @throws UnsupportedOperationException when the configured tier hosts no sessions: the message names the tier
     * @throws dev.codeagent.domain.execution.SandboxUnavailableException when this host cannot run a kernel (no
     *     ipykernel, or the isolation the tier needs)
     */
    public Session openSession(SessionLimits limits) {
        return sessions().orElseThrow(() -> new UnsupportedOperationException("the " + sandbox().tier()
                + " sandbox hosts no sessions; set sandbox.kind: process or docker for sessions")).open(limits);
    }

    /**
     * The session registry of this agent (owners, caps, the warm pool, the idle and lifetime clocks), built on first
     * call; closing the agent closes every session in it.
     */
    public dev.codeagent.application.session.OpenSessions openSessions() {
        return composition.get(dev.codeagent.application.session.OpenSessions.class);
    }

    /** The configured sandbox's sessions, if it hosts them (built on first call, like {@link #sandbox()}). */
    public Optional<SessionSandbox> sessions() {
        return composition.optional(SessionSandbox.class);
    }

    /** Plain execution through the configured sandbox, built on first call. */
    public ExecuteCode executeCode() {
        return composition.get(ExecuteCode.class);
    }

    /** The configured generator, built on first call. @throws ConfigException when its key is unknown */
    public CodeGenerator generator() {
        return composition.get(CodeGenerator.class);
    }

    /** The configured run log, opened on first call. @throws ConfigException when its key is unknown */
    public RunLog runLog() {
        return composition.get(RunLog.class);
    }

    /**
     * The queue of runs waiting for workers, when the configured store keeps one for other processes
     * (PostgreSQL); empty for a store only this machine uses (SQLite, memory).
     */
    public Optional<WorkQueue> workQueue() {
        return composition.optional(WorkQueue.class);
    }

    /**
     * The queue of single executions waiting for workers, when the configured store keeps one for other
     * processes (PostgreSQL); empty otherwise. Wrap it in a {@link dev.codeagent.application.work.QueuedSandbox} to
     * run programs on the workers.
     */
    public Optional<ExecutionQueue> executionQueue() {
        return composition.optional(ExecutionQueue.class);
    }

    /**
     * An executor whose programs run on the workers behind the shared store's execution queue, under this
     * configuration's code policy and source size limit, with {@code inFlight} executions queued at once. The caller
     * closes its sandbox ({@code executeCode.sandbox().close()}), which withdraws whatever is still queued.
     *
     * @throws IllegalStateException when the configured store keeps no queue for other processes
     */
    public ExecuteCode queuedExecuteCode(int inFlight) {
        ExecutionQueue queue = executionQueue().orElseThrow(() -> new IllegalStateException("store.kind "
                + config.store().kind() + " keeps no queue for other processes; running on workers needs store.kind: postgres"));
        return new ExecuteCode(new dev.codeagent.application.work.QueuedSandbox(queue), config, inFlight,
                composition.get(io.github.resilience4j.retry.RetryRegistry.class));
    }

    /**
     * The agent loop over the configured generator, sandbox and run log, built on first call and shared
     * afterwards (so its circuit breaker sees every run).
     *
     * @throws ConfigException when the generator's or the store's key is unknown
     */
    public SolveTask solveTask() {
        return composition.get(SolveTask.class);
    }

    /**
     * A new agent loop over the configured generator and sandbox that records to {@code recordTo}
     * instead of the configured run log, with its own circuit breaker: for runs that are no one's
     * history (a benchmark's generated samples). The one place a {@link SolveTask} is wired.
     */
    public SolveTask solveTask(RunLog recordTo) {
        return new SolveTask(generator(), executeCode(), recordTo, config.solve(), composition.get(Clock.class),
                composition.get(io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry.class));
    }

    /**
     * The worker of the shared store, built on first call (with the sandbox and the agent loop it works with).
     *
     * @throws ConfigException when the configured store keeps no queue for other processes
     */
    public dev.codeagent.application.work.RunWorker worker() {
        return composition.get(dev.codeagent.application.work.RunWorker.class);
    }

    /**
     * The composition's one metrics registry: what the application counts is registered here; a door adds the
     * registry it exports ({@code meters().add(prometheus)}), and sees every meter, made before or after.
     */
    public io.micrometer.core.instrument.composite.CompositeMeterRegistry meters() {
        return composition.get(io.micrometer.core.instrument.composite.CompositeMeterRegistry.class);
    }

    /**
     * What a front door's own module binds for its commands (the command line's {@code CliModule}), built on first
     * call. Door modules are discovered like the adapters', so the core cannot name their types in a getter of its own.
     *
     * @throws RuntimeException the provider's own exception when it failed
     */
    public <T> T service(Class<T> type) {
        return composition.get(type);
    }

    /** The keys registered for a port: {@code sandbox}, {@code generator} or {@code store}, sorted. */
    public List<String> knownKeys(String port) {
        return composition.knownKeys(port);
    }

    /** Closes what was built (sandbox pools, store connections), newest first. */
    @Override
    public void close() {
        composition.close();
    }
}
