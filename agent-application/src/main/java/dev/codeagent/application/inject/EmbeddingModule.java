package dev.codeagent.application.inject;

import com.google.inject.AbstractModule;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.Provider;
import com.google.inject.multibindings.MapBinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.GeneratorProvider;
import dev.codeagent.application.spi.RunLogProvider;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What a plain-Java embedder handed to {@link dev.codeagent.application.CodeAgent.Builder}, as bindings: its
 * adapters (the {@code *Provider} SPI) under their keys in the {@link Embedded} maps, and the generator, run log or
 * sandbox it supplies itself as the ports' bindings over the config's choice. What its providers make is closed with
 * the composition; what it supplies ready-made is its own to close.
 */
public final class EmbeddingModule extends AbstractModule {

    /**
     * @param generator used whatever {@code generator.kind} says; null for the configured one
     * @param runLog used whatever {@code store.kind} says; null for the configured one
     * @param sandbox made on first need and used whatever {@code sandbox.kind} says; null for the configured one
     */
    public record Embedding(List<SandboxProvider<?>> sandboxes, List<GeneratorProvider<?>> generators,
                            List<RunLogProvider<?>> runLogs, CodeGenerator generator, RunLog runLog,
                            Supplier<? extends Sandbox> sandbox) {

        public Embedding {
            sandboxes = List.copyOf(sandboxes);
            generators = List.copyOf(generators);
            runLogs = List.copyOf(runLogs);
        }

        public static Embedding none() {
            return new Embedding(List.of(), List.of(), List.of(), null, null, null);
        }
    }

    private final CodeAgentConfig config;
    private final Embedding embedding;
    private final Closer closer;

    public EmbeddingModule(CodeAgentConfig config, Embedding embedding, Closer closer) {
        this.config = Objects.requireNonNull(config, "config");
        this.embedding = Objects.requireNonNull(embedding, "embedding");
        this.closer = Objects.requireNonNull(closer, "closer");
    }

    @Override
    protected void configure() {
        SandboxSettings shared = new SandboxSettings(config.sandbox().isolation(), config.limits().toResourceLimits(),
                config.limits().compileLimits());
        MapBinder<String, Sandbox> sandboxes = MapBinder.newMapBinder(binder(), String.class, Sandbox.class, Embedded.class);
        embedding.sandboxes().forEach(p -> sandboxes.addBinding(p.key()).toProvider(made(() -> create(p, shared))).in(LazySingleton.class));
        MapBinder<String, CodeGenerator> generators = MapBinder.newMapBinder(binder(), String.class, CodeGenerator.class, Embedded.class);
        embedding.generators().forEach(p -> generators.addBinding(p.key()).toProvider(made(() -> create(p))).in(LazySingleton.class));
        MapBinder<String, RunLog> runLogs = MapBinder.newMapBinder(binder(), String.class, RunLog.class, Embedded.class);
        embedding.runLogs().forEach(p -> runLogs.addBinding(p.key()).toProvider(made(() -> create(p))).in(LazySingleton.class));
    }

    /** The builder's "use this generator": the Guice embedder's {@code OptionalBinder.setBinding()}, from the other door. */
    static Module generator(CodeGenerator generator) {
        return binder -> OptionalBinder.newOptionalBinder(binder, CodeGenerator.class).setBinding().toInstance(generator);
    }

    /**
     * The builder's "use this run log": it replaces the history, and with it the queues of the configured store (an
     * embedder's own log shares nothing with workers unless it binds {@code StoreQueues} itself).
     */
    static Module runLog(RunLog runLog) {
        return binder -> {
            OptionalBinder.newOptionalBinder(binder, RunLog.class).setBinding().toInstance(runLog);
            // said apart, so the store's capabilities are not taken from a store that is not in use
            OptionalBinder.newOptionalBinder(binder, Key.get(RunLog.class, Embedded.class)).setBinding().toInstance(runLog);
        };
    }

    /** A sandbox the embedder makes (and keeps: it is not registered to be closed), made on first need. */
    static Module sandbox(Supplier<? extends Sandbox> sandbox) {
        return binder -> OptionalBinder.newOptionalBinder(binder, Sandbox.class).setBinding()
                .toProvider((Provider<Sandbox>) sandbox::get).in(LazySingleton.class);
    }

    private <T> Provider<T> made(Supplier<T> make) {
        return () -> closer.register(make.get());
    }

    private <C> Sandbox create(SandboxProvider<C> p, SandboxSettings shared) {
        return p.create(config.section(p.config()), shared);
    }

    private <C> CodeGenerator create(GeneratorProvider<C> p) {
        return p.create(config.section(p.config()));
    }

    private <C> RunLog create(RunLogProvider<C> p) {
        return p.create(config.section(p.config()));
    }
}
