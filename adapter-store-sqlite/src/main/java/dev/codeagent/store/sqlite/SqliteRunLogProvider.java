package dev.codeagent.store.sqlite;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.RunLogProvider;
import dev.codeagent.domain.solving.RunLog;

/**
 * {@code store.kind: sqlite}: the {@link SqliteRunLog} at {@code store.sqlite.path}, opened only when
 * this store is chosen and first asked for. Runs left RUNNING are for the front door to mark.
 */
public final class SqliteRunLogProvider implements RunLogProvider<SqliteStoreConfig> {

    @Override
    public String key() {
        return "sqlite";
    }

    @Override
    public ConfigSection<SqliteStoreConfig> config() {
        return SqliteStoreConfig.SECTION;
    }

    @Override
    public RunLog create(SqliteStoreConfig own) {
        return SqliteRunLog.open(SqliteRunLog.resolvePath(own.path()));
    }
}
