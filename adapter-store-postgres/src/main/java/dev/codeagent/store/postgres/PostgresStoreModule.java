package dev.codeagent.store.postgres;

import com.google.inject.Provides;
import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.solving.RunLog;
import java.util.List;

/**
 * {@code store.kind: postgres}: the {@link PostgresStore} (the run log, and the work and execution queues workers share)
 * in the database at {@code store.postgres.jdbcUrl}, connected and migrated only when this store is chosen and first
 * asked for.
 */
public final class PostgresStoreModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(PostgresStoreConfig.SECTION);
    }

    /** One store a process: the run log and both queues share its connections and its owner row. */
    @Provides
    @LazySingleton
    PostgresStore store(PostgresStoreConfig own, Closer closer) {
        return closer.register(PostgresStore.open(own));
    }

    @ProvidesIntoMap
    @StringMapKey("postgres")
    RunLog postgres(PostgresStore store) {
        return store.runLog();
    }

    /** The runs it queues for workers: what the composition offers as {@code Optional<WorkQueue>}. */
    @ProvidesIntoMap
    @StringMapKey("postgres")
    WorkQueue runs(PostgresStore store) {
        return store.workQueue();
    }

    @ProvidesIntoMap
    @StringMapKey("postgres")
    ExecutionQueue executions(PostgresStore store) {
        return store.executionQueue();
    }

    /** Submitted executions and their results, shared by every front door of the database. */
    @ProvidesIntoMap
    @StringMapKey("postgres")
    ExecutionResults results(PostgresStore store) {
        return store.executionResults();
    }

    /** Evaluations sent over HTTP and their reports, shared by every front door of the database. */
    @ProvidesIntoMap
    @StringMapKey("postgres")
    EvaluationLog evaluations(PostgresStore store) {
        return store.evaluationLog();
    }
}
