package dev.codeagent.application.inject;

import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.Module;
import com.google.inject.Provider;
import com.google.inject.ProvisionException;
import com.google.inject.Stage;
import com.google.inject.spi.Message;
import com.google.inject.util.Types;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The one composition root: the injector for one configuration, and the only place that asks it for anything. The
 * config was read and validated before (by {@link dev.codeagent.application.config.ConfigLoader}), so what can still
 * fail here is an adapter's own provider (no docker engine, no API key), and that failure reaches the caller as the
 * provider's own exception with its one-line message, never as Guice's report around it.
 */
public final class Composition implements AutoCloseable {

    private final CodeAgentConfig config;
    private final Injector injector;
    private final Closer closer;

    private Composition(CodeAgentConfig config, Injector injector, Closer closer) {
        this.config = config;
        this.injector = injector;
        this.closer = closer;
    }

    /**
     * Composes {@code adapters} and what an embedder handed the builder for {@code config}, and checks the one choice
     * every door needs at start: that {@code sandbox.kind} names a known tier (the tier itself is built on first use).
     *
     * @throws dev.codeagent.application.config.ConfigException {@code sandbox.kind: unknown 'x'; known: …}
     */
    public static Composition create(CodeAgentConfig config, List<? extends AdapterModule> adapters,
            EmbeddingModule.Embedding embedding) {
        Closer closer = new Closer();
        List<Module> modules = new ArrayList<>();
        modules.add(CodeAgentModules.of(config, adapters, closer));
        modules.add(new EmbeddingModule(config, embedding, closer));
        if (embedding.generator() != null) {
            modules.add(EmbeddingModule.generator(embedding.generator()));
        }
        if (embedding.runLog() != null) {
            modules.add(EmbeddingModule.runLog(embedding.runLog()));
        }
        if (embedding.sandbox() != null) {
            modules.add(EmbeddingModule.sandbox(embedding.sandbox()));
        }
        modules.add(binder -> {
            // every binding is one a module wrote down, and a cycle is an error rather than a proxy
            binder.requireExplicitBindings();
            binder.disableCircularProxies();
        });
        Injector injector;
        try {
            // PRODUCTION checks every binding now; @LazySingleton keeps it from building anything now
            injector = Guice.createInjector(Stage.PRODUCTION, modules);
        } catch (CreationException e) {
            throw unwrap(e.getErrorMessages(), e);
        }
        Composition c = new Composition(config, injector, closer);
        Choice.of("sandbox.kind", config.sandbox().kind(), c.discovered(Sandbox.class), c.embedded(Sandbox.class));
        return c;
    }

    /**
     * What the injector provides for {@code type}, built on first call.
     *
     * @throws RuntimeException the provider's own exception when it failed (a {@code ConfigException}, a
     *     {@code SandboxUnavailableException}, …)
     */
    public <T> T get(Class<T> type) {
        try {
            return injector.getInstance(type);
        } catch (ProvisionException e) {
            throw unwrap(e.getErrorMessages(), e);
        }
    }

    /**
     * A capability the composition offers only when the chosen adapter has it ({@code Optional<SessionSandbox>},
     * {@code Optional<WorkQueue>}, {@code Optional<ExecutionQueue>}): empty when it has not, never found by a cast.
     */
    @SuppressWarnings("unchecked")
    public <T> java.util.Optional<T> optional(Class<T> type) {
        try {
            return (java.util.Optional<T>) injector.getInstance(Key.get(Types.newParameterizedType(java.util.Optional.class, type)));
        } catch (ProvisionException e) {
            throw unwrap(e.getErrorMessages(), e);
        }
    }

    /** The keys registered for a port: {@code sandbox}, {@code generator} or {@code store}, sorted. */
    public List<String> knownKeys(String port) {
        Class<?> type = switch (port) {
            case "sandbox" -> Sandbox.class;
            case "generator" -> CodeGenerator.class;
            case "store" -> RunLog.class;
            default -> throw new IllegalArgumentException("no port " + port);
        };
        return Choice.keys(discovered(type), embedded(type));
    }

    public CodeAgentConfig config() {
        return config;
    }

    @SuppressWarnings("unchecked")
    private <T> Map<String, Provider<T>> discovered(Class<T> type) {
        return (Map<String, Provider<T>>) injector.getInstance(mapKey(type));
    }

    @SuppressWarnings("unchecked")
    private <T> Map<String, Provider<T>> embedded(Class<T> type) {
        return (Map<String, Provider<T>>) injector.getInstance(mapKey(type).withAnnotation(Embedded.class));
    }

    private static Key<?> mapKey(Class<?> type) {
        return Key.get(Types.mapOf(String.class, Types.providerOf(type)));
    }

    /** Closes what the composition opened, newest first. */
    @Override
    public void close() {
        closer.close();
    }

    /**
     * The exception a provider threw, as it threw it; Guice's own errors (a missing or duplicate binding: a packaging
     * mistake, not the user's) as one line.
     */
    static RuntimeException unwrap(Collection<Message> messages, RuntimeException whole) {
        for (Message m : messages) {
            Throwable cause = m.getCause();
            while (cause instanceof ProvisionException p && p.getCause() != null) {
                cause = p.getCause();
            }
            if (cause instanceof RuntimeException r) {
                return r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            if (cause != null) {
                return new IllegalStateException(cause.getMessage(), cause);
            }
        }
        String first = messages.isEmpty() ? whole.getMessage() : messages.iterator().next().getMessage();
        return new IllegalStateException("composing codeagent failed: " + first.lines().findFirst().orElse(first), whole);
    }
}
