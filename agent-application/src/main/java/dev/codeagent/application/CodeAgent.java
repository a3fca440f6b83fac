package dev.codeagent.application;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.GeneratorProvider;
import dev.codeagent.application.spi.RunLogProvider;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.application.store.InMemoryRunLogProvider;
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
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Adapters are found on the classpath through {@link ServiceLoader} (see {@link Adapters}): each
 * {@link SandboxProvider}, {@link GeneratorProvider} and {@link RunLogProvider} registers under a key,
 * and the config picks one by key. An unknown sandbox key fails at creation with the list of known
 * ones; the sandbox, the generator and the run log are built when first asked for, so an executor
 * needs no generator adapter and reading the run history needs no working sandbox.
 *
 * <p>Composition is plain code, not a DI container: three maps from key to factory are all it takes,
 * and a container would only stand between a provider's one-line error and the user.
 */
public final class CodeAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CodeAgent.class);

    private final CodeAgentConfig config;
    private final Map<String, SandboxProvider<?>> sandboxes;
    private final Map<String, GeneratorProvider<?>> generators;
    private final Map<String, RunLogProvider<?>> runLogs;
    private final Supplier<Sandbox> sandbox;
    private final Supplier<ExecuteCode> executeCode;
    private final Supplier<CodeGenerator> generator;
    private final Supplier<RunLog> runLog;
    private final Supplier<SolveTask> solveTask;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    private CodeAgent(Builder b, Adapters adapters) {
        this.config = b.config;
        this.sandboxes = byKey(adapters.sandboxes(), b.sandboxes, SandboxProvider::key);
        this.generators = byKey(adapters.generators(), b.generators, GeneratorProvider::key);
        this.runLogs = byKey(adapters.runLogs(), b.runLogs, RunLogProvider::key);
        runLogs.putIfAbsent(InMemoryRunLogProvider.KEY, new InMemoryRunLogProvider());
        SandboxProvider<?> sandboxProvider = find(sandboxes, "sandbox.kind", config.sandbox().kind());
        this.sandbox = memoize(() -> track(createSandbox(sandboxProvider)));
        this.executeCode = memoize(() -> executeCode(sandbox(), config.sandbox().maxConcurrent()));
        this.generator = b.generator != null ? () -> b.generator
                : memoize(() -> track(createGenerator(find(generators, "generator.kind", config.generator().kind()))));
        this.runLog = b.runLog != null ? () -> b.runLog
                : memoize(() -> track(createRunLog(find(runLogs, "store.kind", config.store().kind()))));
        this.solveTask = memoize(() -> solveTask(runLog()));
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

        /** Uses only the providers added here (and the in-memory store), not the classpath's. */
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

        /**
         * @throws ConfigException when the configured sandbox key is unknown
         */
        public CodeAgent build() {
            Adapters found = discover ? Adapters.discover() : new Adapters(List.of(), List.of(), List.of(), List.of());
            found.sandboxes().forEach(p -> log.debug("sandbox adapter {} ({})", p.key(), p.getClass().getName()));
            return new CodeAgent(this, found);
        }
    }

    public CodeAgentConfig config() {
        return config;
    }

    /**
     * The configured sandbox, built (and its host checked) on first call.
     *
     * @throws dev.codeagent.domain.execution.SandboxUnavailableException when it cannot run on this host
     */
    public Sandbox sandbox() {
        return sandbox.get();
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
        Sandbox s = sandbox();
        if (!(s instanceof SessionSandbox tier)) {
            throw new UnsupportedOperationException("the " + s.tier() + " sandbox hosts no sessions; "
                    + "set sandbox.kind: process or docker for sessions");
        }
        return tier.open(limits);
    }

    /** Plain execution through the configured sandbox, built on first call. */
    public ExecuteCode executeCode() {
        return executeCode.get();
    }

    /** The configured generator, built on first call. @throws ConfigException when its key is unknown */
    public CodeGenerator generator() {
        return generator.get();
    }

    /** The configured run log, opened on first call. @throws ConfigException when its key is unknown */
    public RunLog runLog() {
        return runLog.get();
    }

    /**
     * The queue of runs waiting for workers, when the configured store keeps one for other processes
     * (PostgreSQL); empty for a store only this machine uses (SQLite, memory).
     */
    public Optional<WorkQueue> workQueue() {
        RunLog log = runLog();
        return log instanceof WorkQueue ? Optional.of((WorkQueue) log) : Optional.empty();
    }

    /**
     * The queue of single executions waiting for workers, when the configured store keeps one for other
     * processes (PostgreSQL); empty otherwise. Wrap it in a {@link dev.codeagent.application.work.QueuedSandbox} to
     * run programs on the workers.
     */
    public Optional<ExecutionQueue> executionQueue() {
        RunLog log = runLog();
        return log instanceof ExecutionQueue ? Optional.of((ExecutionQueue) log) : Optional.empty();
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
        return executeCode(new dev.codeagent.application.work.QueuedSandbox(queue), inFlight);
    }

    /** An executor over {@code sandbox} with this configuration's code policy, size and compile limits. */
    private ExecuteCode executeCode(Sandbox over, int places) {
        return new ExecuteCode(over, config.policy().toPolicy(), config.sandbox().maxSourceBytes().bytes(), places,
                config.sandbox().maxQueueWait(), config.limits().compileLimits());
    }

    /**
     * The agent loop over the configured generator, sandbox and run log, built on first call and shared
     * afterwards (so its circuit breaker sees every run).
     *
     * @throws ConfigException when the generator's or the store's key is unknown
     */
    public SolveTask solveTask() {
        return solveTask.get();
    }

    /**
     * A new agent loop over the configured generator and sandbox that records to {@code recordTo}
     * instead of the configured run log, with its own circuit breaker: for runs that are no one's
     * history (a benchmark's generated samples). The one place a {@link SolveTask} is wired.
     */
    public SolveTask solveTask(RunLog recordTo) {
        return new SolveTask(generator(), executeCode(), recordTo, config.solve(), Clock.systemUTC());
    }

    /** The keys registered for a port: {@code sandbox}, {@code generator} or {@code store}, sorted. */
    public List<String> knownKeys(String port) {
        switch (port) {
            case "sandbox":
                return new ArrayList<>(sandboxes.keySet());
            case "generator":
                return new ArrayList<>(generators.keySet());
            case "store":
                return new ArrayList<>(runLogs.keySet());
            default:
                throw new IllegalArgumentException("no port " + port);
        }
    }

    private <C> Sandbox createSandbox(SandboxProvider<C> p) {
        return p.create(config.section(p.config()), new SandboxSettings(config.sandbox().isolation(), config.limits().toResourceLimits()));
    }

    private <C> CodeGenerator createGenerator(GeneratorProvider<C> p) {
        return p.create(config.section(p.config()));
    }

    private <C> RunLog createRunLog(RunLogProvider<C> p) {
        return p.create(config.section(p.config()));
    }

    /** Discovered providers by key, then the explicitly added ones over them. */
    private static <P> Map<String, P> byKey(List<? extends P> discovered, List<? extends P> added, Function<P, String> key) {
        Map<String, P> all = new TreeMap<>();
        discovered.forEach(p -> all.put(key.apply(p), p));
        added.forEach(p -> all.put(key.apply(p), p));
        return all;
    }

    private static <P> P find(Map<String, P> known, String configKey, String chosen) {
        P p = known.get(chosen);
        if (p == null) {
            throw new ConfigException(configKey + ": unknown '" + chosen + "'; known: "
                    + (known.isEmpty() ? "none (no adapter for it is on the classpath)" : String.join(", ", known.keySet())));
        }
        return p;
    }

    private <T> T track(T instance) {
        if (instance instanceof AutoCloseable) {
            synchronized (closeables) {
                closeables.add((AutoCloseable) instance);
            }
        }
        return instance;
    }

    private static <T> Supplier<T> memoize(Supplier<T> s) {
        return new Supplier<>() {
            private T value;

            @Override
            public synchronized T get() {
                if (value == null) {
                    value = s.get();
                }
                return value;
            }
        };
    }

    /** Closes what was built (sandbox pools, store connections), newest first. */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (closeables) {
            toClose = new ArrayList<>(closeables);
            closeables.clear();
        }
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                log.warn("closing {} failed: {}", toClose.get(i).getClass().getSimpleName(), e.toString());
            }
        }
    }
}
