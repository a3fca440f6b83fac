package dev.codeagent.store.postgres;

import com.google.inject.Provides;
import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.WorkQueue;
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

    /** The one store object: the run log and both queues are this, so they share its connection and its owner row. */
    @Provides
    @LazySingleton
    PostgresRunLog store(PostgresStoreConfig own, Closer closer) {
        return closer.register(PostgresRunLog.open(own));
    }

    @ProvidesIntoMap
    @StringMapKey("postgres")
    RunLog postgres(PostgresRunLog store) {
        return store;
    }

    /** The runs it queues for workers: what the composition offers as {@code Optional<WorkQueue>}. */
    @ProvidesIntoMap
    @StringMapKey("postgres")
    WorkQueue runs(PostgresRunLog store) {
        return store;
    }

    @ProvidesIntoMap
    @StringMapKey("postgres")
    ExecutionQueue executions(PostgresRunLog store) {
        return store;
    }
}
