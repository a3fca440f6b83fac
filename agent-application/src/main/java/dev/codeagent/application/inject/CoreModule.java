package dev.codeagent.application.inject;

import com.google.inject.AbstractModule;
import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.Provides;
import com.google.inject.multibindings.MapBinder;
import com.google.inject.multibindings.OptionalBinder;
import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ResilienceConfig;
import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.config.StoreConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Clock;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The application's own bindings for one configuration: the config and every adapter section as read (already
 * validated), the maps adapters register into, the config's choice from each map as the default of the port (which
 * an embedder may replace with {@link OptionalBinder#setBinding()}), the in-memory store, and the use cases.
 *
 * <p>Every binding here is {@link LazySingleton}: composing costs nothing until a door asks for something, and what
 * is asked for builds only what it needs (an executor never builds a generator).
 */
public final class CoreModule extends AbstractModule {

    /** The key of the store that keeps runs for the life of the process; always present. */
    public static final String MEMORY = "memory";

    private final CodeAgentConfig config;
    private final Map<String, ConfigSection<?>> sections = new LinkedHashMap<>();
    private final Closer closer;

    /**
     * @param sections the sections the installed adapter modules read, each bound to its value in {@code config}
     * @param closer where what the composition opens is registered, to be closed with it
     */
    public CoreModule(CodeAgentConfig config, Collection<? extends ConfigSection<?>> sections, Closer closer) {
        this.config = Objects.requireNonNull(config, "config");
        this.closer = Objects.requireNonNull(closer, "closer");
        this.sections.put(ResilienceConfig.SECTION.path(), ResilienceConfig.SECTION);
        sections.stream().filter(s -> !s.isNone()).forEach(s -> this.sections.putIfAbsent(s.path(), s));
    }

    @Override
    protected void configure() {
        bindScope(LazySingleton.class, LazySingletonScope.INSTANCE);
        bind(CodeAgentConfig.class).toInstance(config);
        bind(SolveConfig.class).toInstance(config.solve());
        bind(StoreConfig.class).toInstance(config.store());
        bind(Clock.class).toInstance(Clock.systemUTC());
        bind(Closer.class).toInstance(closer);
        sections.values().forEach(this::bindSection);

        port(Sandbox.class);
        port(CodeGenerator.class);
        port(RunLog.class);
        // a run log an embedder handed in, said apart from the configured store (whose queues it does not have)
        OptionalBinder.newOptionalBinder(binder(), Key.get(RunLog.class, Embedded.class));

        // one per composition: its circuit breaker must see every run of this process
        bind(SolveTask.class).in(LazySingleton.class);
        bind(dev.codeagent.application.eval.JudgeCode.class).in(LazySingleton.class);
        // the one registry: what the application counts goes here; each door adds the exporter it serves
        bind(MeterRegistry.class).to(CompositeMeterRegistry.class);
    }

    /**
     * The maps a port's adapters register into (declared here so that they exist, empty, when none is on the class
     * path), and the port itself: the config's choice unless an embedder sets another.
     */
    private <T> void port(Class<T> type) {
        MapBinder.newMapBinder(binder(), String.class, type);
        MapBinder.newMapBinder(binder(), String.class, type, Embedded.class);
        OptionalBinder.newOptionalBinder(binder(), type).setDefault().to(Key.get(type, Configured.class));
    }

    private <T> void bindSection(ConfigSection<T> section) {
        bind(section.type()).toInstance(config.section(section));
    }

    /** The model endpoint's circuit breaker settings ({@code resilience.llm*}). */
    @Provides
    @LazySingleton
    CircuitBreakerRegistry circuitBreakers(ResilienceConfig resilience) {
        return resilience.circuitBreakers();
    }

    /** The sandbox's retry settings ({@code resilience.sandbox*}). */
    @Provides
    @LazySingleton
    RetryRegistry retries(ResilienceConfig resilience) {
        return resilience.retries();
    }

    @Provides
    SandboxSettings sandboxSettings() {
        return new SandboxSettings(config.sandbox().isolation(), config.limits().toResourceLimits(),
                config.limits().compileLimits());
    }

    @Provides
    @Configured
    @LazySingleton
    Sandbox configuredSandbox(Map<String, Provider<Sandbox>> discovered, @Embedded Map<String, Provider<Sandbox>> embedded) {
        return Choice.of("sandbox.kind", config.sandbox().kind(), discovered, embedded).get();
    }

    /**
     * The executor every door and embedder runs programs through, over the sandbox in use (configured or an embedder's)
     * with compiled languages compiled: {@link CompilingSandbox} goes on here, once. Not over the workers' queue
     * ({@link CompilingSandbox.CompiledElsewhere}): a queued program crosses to a worker whole and the worker's own
     * composition compiles it, so the built program never crosses the queue and nothing is compiled twice.
     */
    @Provides
    @LazySingleton
    ExecuteCode executeCode(Sandbox sandbox, CodeAgentConfig config, RetryRegistry retries) {
        return new ExecuteCode(CompilingSandbox.over(sandbox), config, retries);
    }

    @Provides
    @Configured
    @LazySingleton
    CodeGenerator configuredGenerator(Map<String, Provider<CodeGenerator>> discovered,
            @Embedded Map<String, Provider<CodeGenerator>> embedded) {
        return Choice.of("generator.kind", config.generator().kind(), discovered, embedded).get();
    }

    @Provides
    @Configured
    @LazySingleton
    RunLog configuredRunLog(Map<String, Provider<RunLog>> discovered, @Embedded Map<String, Provider<RunLog>> embedded) {
        return Choice.of("store.kind", config.store().kind(), discovered, embedded).get();
    }

    /**
     * Sessions, when the sandbox in use hosts them. Read off the sandbox here, once, because the sandbox may come from
     * the {@code SandboxProvider} SPI or an embedder's supplier, both typed {@link Sandbox}; doors ask for this.
     */
    @Provides
    Optional<SessionSandbox> sessions(Sandbox sandbox) {
        return sandbox instanceof SessionSandbox tier ? Optional.of(tier) : Optional.empty();
    }

    @Provides
    @LazySingleton
    CompositeMeterRegistry meters() {
        return new CompositeMeterRegistry();
    }

    @ProvidesIntoMap
    @StringMapKey(MEMORY)
    @LazySingleton
    RunLog memoryRunLog() {
        return new InMemoryRunLog();
    }
}
