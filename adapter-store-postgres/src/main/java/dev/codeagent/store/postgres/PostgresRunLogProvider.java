package dev.codeagent.store.postgres;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.RunLogProvider;
import dev.codeagent.domain.solving.RunLog;

/**
 * {@code store.kind: postgres}: the {@link PostgresRunLog} in the database at {@code store.postgres.jdbcUrl},
 * connected and migrated only when this store is chosen and first asked for.
 */
public final class PostgresRunLogProvider implements RunLogProvider<PostgresStoreConfig> {

    @Override
    public String key() {
        return "postgres";
    }

    @Override
    public ConfigSection<PostgresStoreConfig> config() {
        return PostgresStoreConfig.SECTION;
    }

    @Override
    public RunLog create(PostgresStoreConfig own) {
        return PostgresRunLog.open(own);
    }
}
