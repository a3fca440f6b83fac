package dev.codeagent.store.postgres;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.domain.solving.RunLog;
import java.util.List;

/**
 * {@code store.kind: postgres}: the {@link PostgresRunLog} (with the work and execution queues workers share) in the
 * database at {@code store.postgres.jdbcUrl}, connected and migrated only when this store is chosen and first asked for.
 */
public final class PostgresStoreModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(PostgresStoreConfig.SECTION);
    }

    @ProvidesIntoMap
    @StringMapKey("postgres")
    @LazySingleton
    RunLog postgres(PostgresStoreConfig own, Closer closer) {
        return closer.register(new PostgresRunLogProvider().create(own));
    }
}
