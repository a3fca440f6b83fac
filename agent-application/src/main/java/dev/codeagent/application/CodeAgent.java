package dev.codeagent.application;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.Provider;
import com.google.inject.Stage;
import com.google.inject.TypeLiteral;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeSet;
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
 * <p>Adapters are found on the classpath through {@link ServiceLoader} ({@link AdapterModule}); each
 * registers its implementation under a key, and the config picks one by key. An unknown sandbox key
 * fails at creation with the list of known ones; the sandbox, the generator and the run log are built
 * when first asked for, so an executor needs no generator adapter and reading the run history needs no
 * working sandbox.
 */
public final class CodeAgent implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(CodeAgent.class);

    private final CodeAgentConfig config;
    private final Injector injector;
    private final Supplier<Sandbox> sandbox;
    private final Supplier<ExecuteCode> executeCode;
    private final Supplier<CodeGenerator> generator;
    private final Supplier<RunLog> runLog;
    private final Supplier<SolveTask> solveTask;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    private CodeAgent(CodeAgentConfig config, List<Module> modules, CodeGenerator generatorOverride, RunLog runLogOverride) {
        this.config = Objects.requireNonNull(config, "config");
        List<Module> all = new ArrayList<>(modules);
        all.add(new CoreModule(config));
        this.injector = Guice.createInjector(Stage.DEVELOPMENT, all);
        TypeLiteral<Map<String, Provider<Sandbox>>> sandboxes = new TypeLiteral<>() { };
        requireKnown(sandboxes, "sandbox.kind", config.sandbox().kind());
        this.sandbox = memoize(() -> select(sandboxes, "sandbox.kind", config.sandbox().kind()));
        this.executeCode = memoize(() -> new ExecuteCode(sandbox(), config.policy().toPolicy(),
                config.sandbox().maxSourceBytes().bytes(), config.sandbox().maxConcurrent(), config.sandbox().maxQueueWait()));
        this.generator = generatorOverride != null ? () -> generatorOverride
                : memoize(() -> select(new TypeLiteral<Map<String, Provider<CodeGenerator>>>() { }, "generator.kind",
                        config.generator().kind()));
        this.runLog = runLogOverride != null ? () -> runLogOverride
                : memoize(() -> select(new TypeLiteral<Map<String, Provider<RunLog>>>() { }, "store.kind", config.store().kind()));
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

    /** Builds a {@link CodeAgent}; lets an embedding program supply its own generator or run log. */
    public static final class Builder {
        private final CodeAgentConfig config;
        private final List<Module> modules = new ArrayList<>();
        private boolean discover = true;
        private CodeGenerator generator;
        private RunLog runLog;

        private Builder(CodeAgentConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /** Adds a module besides those found on the classpath. */
        public Builder module(Module module) {
            modules.add(module);
            return this;
        }

        /** Uses only the modules added here, not the classpath's. */
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
         * @throws ConfigException when a configured key is unknown
         * @throws dev.codeagent.domain.execution.SandboxUnavailableException when the sandbox cannot run here
         */
        public CodeAgent build() {
            List<Module> all = new ArrayList<>(modules);
            if (discover) {
                for (AdapterModule m : ServiceLoader.load(AdapterModule.class)) {
                    log.debug("adapter module {}", m.getClass().getName());
                    all.add(m);
                }
            }
            return new CodeAgent(config, all, generator, runLog);
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
        return new SolveTask(generator(), executeCode(), recordTo, config.solve(), java.time.Clock.systemUTC());
    }

    /** The keys registered for a port: {@code sandbox}, {@code generator} or {@code store}. */
    public List<String> knownKeys(String port) {
        switch (port) {
            case "sandbox":
                return keys(new TypeLiteral<Map<String, Provider<Sandbox>>>() { });
            case "generator":
                return keys(new TypeLiteral<Map<String, Provider<CodeGenerator>>>() { });
            case "store":
                return keys(new TypeLiteral<Map<String, Provider<RunLog>>>() { });
            default:
                throw new IllegalArgumentException("no port " + port);
        }
    }

    private <T> List<String> keys(TypeLiteral<Map<String, Provider<T>>> type) {
        return new ArrayList<>(new TreeSet<>(injector.getInstance(Key.get(type)).keySet()));
    }

    private <T> Provider<T> requireKnown(TypeLiteral<Map<String, Provider<T>>> type, String configKey, String chosen) {
        Map<String, Provider<T>> known = injector.getInstance(Key.get(type));
        Provider<T> p = known.get(chosen);
        if (p == null) {
            throw new ConfigException(configKey + ": unknown '" + chosen + "'; known: "
                    + (known.isEmpty() ? "none (no adapter for it is on the classpath)" : String.join(", ", new TreeSet<>(known.keySet()))));
        }
        return p;
    }

    private <T> T select(TypeLiteral<Map<String, Provider<T>>> type, String configKey, String chosen) {
        Provider<T> p = requireKnown(type, configKey, chosen);
        T instance;
        try {
            instance = p.get();
        } catch (com.google.inject.ProvisionException e) {
            // providers fail with one-line domain/config exceptions; Guice's wrapper would bury them in a trace
            Throwable cause = e.getCause();
            while (cause instanceof com.google.inject.ProvisionException && cause.getCause() != null) {
                cause = cause.getCause();
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw e;
        }
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

    /** Binds the config and the adapters that live in the application itself. */
    private static final class CoreModule extends AbstractModule {
        private final CodeAgentConfig config;

        CoreModule(CodeAgentConfig config) {
            this.config = config;
        }

        @Override
        protected void configure() {
            bind(CodeAgentConfig.class).toInstance(config);
            // declare the maps so that a missing adapter reads as "no keys", not as a Guice error
            AdapterBindings.sandboxes(binder());
            AdapterBindings.generators(binder());
            AdapterBindings.runLog(binder(), "memory").to(InMemoryRunLog.class).in(com.google.inject.Singleton.class);
        }
    }
}
