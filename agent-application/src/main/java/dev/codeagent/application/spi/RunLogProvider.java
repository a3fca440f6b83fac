package dev.codeagent.application.spi;

import dev.codeagent.domain.solving.RunLog;

/**
 * A run store as a factory: its key ({@code store.kind}), its own config section, and how it is built. An adapter module's
 * {@link AdapterModule} builds its implementation through its provider, and a plain-Java embedder adds one with
 * {@code CodeAgent.builder(config).provider(...)} (it wins over a discovered adapter of the same key). Adapters on
 * the class path are found as {@link AdapterModule}s, not as providers. No I/O until {@code create}.
 *
 * @param <C> the type of the store's own config section
 */
public interface RunLogProvider<C> {

    /** The value of {@code store.kind} that picks this store, e.g. {@code sqlite}. */
    String key();

    /** The store's own config section (e.g. {@code store.sqlite}), or {@link ConfigSection#NONE}. */
    ConfigSection<C> config();

    /** Opens the run log, only when it is the configured one and first needed. @param own its section as configured */
    RunLog create(C own);
}
