package dev.codeagent.cli.daemon;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Composes a fresh agent per call (config is per call: the caller's file, environment and flags) over
 * sandboxes kept warm across calls: one per distinct sandbox configuration, so the docker client, its
 * container pool and the process tier's host probe are paid once. Sandboxes are safe to share between
 * concurrent executions (the HTTP server shares one the same way).
 */
final class WarmSandboxes implements Function<CodeAgentConfig, CodeAgent>, AutoCloseable {

    private final List<SandboxProvider<?>> providers;
    /** Distinct sandbox configurations kept warm at once; the least recently used beyond that is closed. */
    static final int MAX_WARM = 4;

    private final Map<List<Object>, Sandbox> warm = new LinkedHashMap<>(16, 0.75f, true);

    WarmSandboxes() {
        this.providers = Adapters.discover().sandboxes();
    }

    @Override
    public CodeAgent apply(CodeAgentConfig config) {
        CodeAgent.Builder builder = CodeAgent.builder(config);
        providers.forEach(p -> builder.provider(sharing(p)));
        return builder.build();
    }

    /** How many sandboxes are warm (for tests). */
    synchronized int size() {
        return warm.size();
    }

    private <C> SandboxProvider<C> sharing(SandboxProvider<C> provider) {
        return new SandboxProvider<>() {
            @Override
            public String key() {
                return provider.key();
            }

            @Override
            public ConfigSection<C> config() {
                return provider.config();
            }

            @Override
            public Sandbox create(C own, SandboxSettings shared) {
                return unclosable(warm(List.of(provider.key(), own, shared), () -> provider.create(own, shared)));
            }
        };
    }

    /**
     * The warm sandbox for this configuration, built on first use. A failure to build (docker down)
     * is not remembered: the next call tries again. Built under the lock: two first calls at once
     * must not start two pools.
     */
    private synchronized Sandbox warm(List<Object> key, java.util.function.Supplier<Sandbox> create) {
        Sandbox sandbox = warm.get(key);
        if (sandbox == null) {
            sandbox = create.get();
            warm.put(key, sandbox);
            if (warm.size() > MAX_WARM) {
                // limits given per call make new configurations; keep a few, not one per flag value
                var eldest = warm.entrySet().iterator().next();
                warm.remove(eldest.getKey());
                closeQuietly(eldest.getValue());
            }
        }
        return sandbox;
    }

    private static void closeQuietly(Sandbox s) {
        try {
            s.close();
        } catch (RuntimeException e) {
            // stopping it anyway; the docker tier reaps its own leftovers at its next start
        }
    }

    /**
     * The sandbox as the per-call agent sees it: closing the agent leaves it warm for the next call. It keeps every
     * interface the sandbox has ({@code SessionSandbox} too), so that nothing the tier can do is lost in the wrapping.
     */
    static Sandbox unclosable(Sandbox sandbox) {
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        for (Class<?> c = sandbox.getClass(); c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (Modifier.isPublic(i.getModifiers())) {
                    interfaces.add(i);
                }
            }
        }
        interfaces.add(Sandbox.class);
        return (Sandbox) Proxy.newProxyInstance(sandbox.getClass().getClassLoader(), interfaces.toArray(Class<?>[]::new), (proxy, method, args) -> {
            if (method.getName().equals("close") && method.getParameterCount() == 0) {
                return null;
            }
            try {
                return method.invoke(sandbox, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    @Override
    public void close() {
        List<Sandbox> all;
        synchronized (this) {
            all = new ArrayList<>(warm.values());
            warm.clear();
        }
        all.forEach(WarmSandboxes::closeQuietly);
    }
}
