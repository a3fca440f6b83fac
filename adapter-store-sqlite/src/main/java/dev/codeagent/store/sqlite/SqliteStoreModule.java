package dev.codeagent.store.sqlite;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.domain.solving.RunLog;
import java.util.List;

/**
 * {@code store.kind: sqlite}: the {@link SqliteRunLog} at {@code store.sqlite.path}, opened only when this store is
 * chosen and first asked for. Runs left RUNNING are for the front door to mark.
 */
public final class SqliteStoreModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(SqliteStoreConfig.SECTION);
    }

    @ProvidesIntoMap
    @StringMapKey("sqlite")
    @LazySingleton
    RunLog sqlite(SqliteStoreConfig own, Closer closer) {
        return closer.register(new SqliteRunLogProvider().create(own));
    }
}
