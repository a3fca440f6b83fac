package dev.codeagent.store.sqlite;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.submit.ExecutionResults;
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

    /** The file, opened once: the run log and the submitted executions share its connection. */
    @com.google.inject.Provides
    @LazySingleton
    SqliteRunLog file(SqliteStoreConfig own, Closer closer) {
        return closer.register(SqliteRunLog.open(SqliteRunLog.resolvePath(own.path())));
    }

    @ProvidesIntoMap
    @StringMapKey("sqlite")
    RunLog sqlite(SqliteRunLog file) {
        return file;
    }

    /** Submitted executions and their results, in the same file: they survive a restart. */
    @ProvidesIntoMap
    @StringMapKey("sqlite")
    ExecutionResults executions(SqliteRunLog file) {
        return new SqliteExecutionResults(file);
    }

    /** Evaluations sent to the server, in the same file: they survive a restart. */
    @ProvidesIntoMap
    @StringMapKey("sqlite")
    EvaluationLog evaluations(SqliteRunLog file) {
        return new SqliteEvaluationLog(file);
    }
}
