package dev.codeagent.store.sqlite;

import com.google.inject.AbstractModule;
import com.google.inject.Singleton;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.spi.AdapterModule;

/**
 * Registers {@link SqliteRunLog} as store kind {@code sqlite}. The file
 * ({@code store.sqlite.path}) is opened only when that kind is chosen and the run log first asked for.
 */
public final class SqliteStoreModule extends AbstractModule implements AdapterModule {

    @Override
    protected void configure() {
        AdapterBindings.runLog(binder(), "sqlite").toProvider(SqliteRunLogProvider.class).in(Singleton.class);
    }
}
