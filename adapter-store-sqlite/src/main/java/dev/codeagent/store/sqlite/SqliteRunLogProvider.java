package dev.codeagent.store.sqlite;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.solving.RunLog;
import jakarta.inject.Inject;
import jakarta.inject.Provider;

/** Opens the configured SQLite run log; runs left RUNNING are for the front door to mark. */
final class SqliteRunLogProvider implements Provider<RunLog> {

    private final CodeAgentConfig config;

    @Inject
    SqliteRunLogProvider(CodeAgentConfig config) {
        this.config = config;
    }

    @Override
    public RunLog get() {
        return SqliteRunLog.open(SqliteRunLog.resolvePath(config.store().sqlite().path()));
    }
}
