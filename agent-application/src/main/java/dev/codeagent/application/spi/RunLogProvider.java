package dev.codeagent.application.spi;

import dev.codeagent.domain.solving.RunLog;

/**
 * A run store a distribution may contain, chosen by {@code store.kind}. Found with
 * {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/dev.codeagent.application.spi.RunLogProvider}; public no-argument
 * constructor, no I/O until {@link #create}. A run log that is {@link AutoCloseable} is closed with the
 * application.
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
