package dev.codeagent.cli.daemon;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.execution.Sandbox;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Composes a fresh agent per call (config is per call: the caller's file, environment and flags) over
 * sandboxes kept warm across calls: one per distinct sandbox configuration, so the docker client, its
 * container pool and the process tier's host probe are paid once. Sandboxes are safe to share between
 * concurrent executions (the HTTP server shares one the same way).
 *
 * <p>Each warm sandbox is owned by an agent of its own, composed for the configuration that made it and
 * closed when the sandbox leaves; the per-call agent is handed the warm tier itself ({@code Builder.sandbox}: a
 * sandbox handed in is the caller's to close), so closing it leaves the sandbox warm, and every capability of the
 * tier (a {@code SessionSandbox} opens sessions) reaches the per-call composition as it is.
 */
final class WarmSandboxes implements Function<CodeAgentConfig, CodeAgent>, AutoCloseable {

    /** Distinct sandbox configurations kept warm at once; the least recently used beyond that is closed. */
    static final int MAX_WARM = 4;

    private final Function<CodeAgentConfig, CodeAgent.Builder> builders;
    private final Map<List<Object>, CodeAgent> warm = new LinkedHashMap<>(16, 0.75f, true);

    WarmSandboxes() {
        this(CodeAgent::builder);
    }

    /** @param builders how an agent is composed for a config (tests compose over scripted sandboxes) */
    WarmSandboxes(Function<CodeAgentConfig, CodeAgent.Builder> builders) {
        this.builders = builders;
    }

    @Override
    public CodeAgent apply(CodeAgentConfig config) {
        // the real tier, not a wrapper: what it can do besides Sandbox (sessions) the per-call composition reads off
        // it; and a sandbox handed to the builder is the caller's, so closing the per-call agent leaves it warm
        return builders.apply(config).sandbox(() -> warm(config)).build();
    }

    /** How many sandboxes are warm (for tests). */
    synchronized int size() {
        return warm.size();
    }

    /**
     * The warm sandbox for this configuration, built on first use. A failure to build (docker down)
     * is not remembered: the next call tries again. Built under the lock: two first calls at once
     * must not start two pools.
     */
    private synchronized Sandbox warm(CodeAgentConfig config) {
        List<Object> key = sandboxKey(config);
        CodeAgent owner = warm.get(key);
        if (owner == null) {
            owner = builders.apply(config).build();
            try {
                owner.sandbox();
            } catch (RuntimeException e) {
                owner.close();
                throw e;
            }
            warm.put(key, owner);
            if (warm.size() > MAX_WARM) {
                // limits given per call make new configurations; keep a few, not one per flag value
                var eldest = warm.entrySet().iterator().next();
                warm.remove(eldest.getKey());
                closeQuietly(eldest.getValue());
            }
        }
        return owner.sandbox();
    }

    /**
     * What a sandbox is built from: the core's sandbox and limits settings, and the sandbox tiers' and stores'
     * own sections (a queue sandbox is built over the store).
     */
    private static List<Object> sandboxKey(CodeAgentConfig config) {
        Map<String, Object> sections = new TreeMap<>();
        config.sections().forEach((path, value) -> {
            if (path.startsWith("sandbox.") || path.startsWith("store.")) {
                sections.put(path, value);
            }
        });
        return List.of(config.sandbox(), config.limits(), config.store(), sections);
    }

    private static void closeQuietly(CodeAgent owner) {
        try {
            owner.close();
        } catch (RuntimeException e) {
            // stopping it anyway; the docker tier reaps its own leftovers at its next start
        }
    }

    @Override
    public void close() {
        List<CodeAgent> all;
        synchronized (this) {
            all = new ArrayList<>(warm.values());
            warm.clear();
        }
        all.forEach(WarmSandboxes::closeQuietly);
    }
}
