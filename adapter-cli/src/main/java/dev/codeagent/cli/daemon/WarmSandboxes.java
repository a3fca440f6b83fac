package dev.codeagent.cli.daemon;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Composes a fresh agent per call (config is per call: the caller's file, environment and flags) over
 * sandboxes kept warm across calls: one per distinct sandbox configuration, so the docker client, its
 * container pool and the process tier's host probe are paid once. Sandboxes are safe to share between
 * concurrent executions (the HTTP server shares one the same way).
 */
final class WarmSandboxes implements Function<CodeAgentConfig, CodeAgent>, AutoCloseable {

    private final List<SandboxProvider<?>> providers;
    private final Map<List<Object>, Sandbox> warm = new ConcurrentHashMap<>();

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
    int size() {
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
                // a failure to build (docker down) is not remembered: the next call tries again
                Sandbox sandbox = warm.computeIfAbsent(List.of(provider.key(), own, shared), k -> provider.create(own, shared));
                return unclosable(sandbox);
            }
        };
    }

    /** The sandbox as the per-call agent sees it: closing the agent leaves it warm for the next call. */
    private static Sandbox unclosable(Sandbox sandbox) {
        return (Sandbox) Proxy.newProxyInstance(Sandbox.class.getClassLoader(), new Class<?>[] {Sandbox.class}, (proxy, method, args) -> {
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
        List<Sandbox> all = new ArrayList<>(warm.values());
        warm.clear();
        for (Sandbox s : all) {
            try {
                s.close();
            } catch (RuntimeException e) {
                // stopping anyway: the next start begins clean (the docker tier reaps its own leftovers)
            }
        }
    }
}
