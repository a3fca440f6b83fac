package dev.codeagent.application.work;

import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.Provides;
import com.google.inject.multibindings.MapBinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.codeagent.application.config.StoreConfig;
import dev.codeagent.application.inject.Configured;
import dev.codeagent.application.inject.Embedded;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.application.submit.InMemoryEvaluationLog;
import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.submit.InMemoryExecutionResults;
import dev.codeagent.domain.solving.RunLog;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Work shared through the store: the maps a store module registers its queues into (beside its run log, under the
 * same key), the queues of the store {@code store.kind} chose as {@link StoreQueues} and
 * {@code Optional<WorkQueue>}/{@code Optional<ExecutionQueue>} (an embedder may replace them through
 * {@link OptionalBinder}), and the {@link RunWorker}.
 *
 * <p>Here rather than in {@code CoreModule} because this package's {@link QueueSandboxModule} already uses the inject
 * package: the root must not depend back on it. Every instance is equal, so installing it twice (listed for
 * discovery, and installed by {@link QueueSandboxModule} that needs it) binds once.
 */
public final class WorkModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of();
    }

    @Override
    protected void configure() {
        MapBinder.newMapBinder(binder(), String.class, WorkQueue.class);
        MapBinder.newMapBinder(binder(), String.class, ExecutionQueue.class);
        MapBinder.newMapBinder(binder(), String.class, ExecutionResults.class);
        MapBinder.newMapBinder(binder(), String.class, EvaluationLog.class);
        OptionalBinder.newOptionalBinder(binder(), StoreQueues.class).setDefault().to(Key.get(StoreQueues.class, Configured.class));
        bind(RunWorker.class).in(LazySingleton.class);
        // where a door's runs are worked (sandbox.kind: queue sends them whole to the workers): the rule, for every door
        bind(RunPlacement.class).in(LazySingleton.class);
    }

    /**
     * The queues of the store {@code store.kind} names, registered by its module under the same key as its run log;
     * asked for by key, never found by testing the run log's class.
     */
    @Provides
    @Configured
    @LazySingleton
    StoreQueues configuredQueues(StoreConfig store, Map<String, Provider<WorkQueue>> runs,
            Map<String, Provider<ExecutionQueue>> executions, @Embedded Optional<RunLog> embeddersOwn) {
        if (embeddersOwn.isPresent()) {
            // the history goes to the embedder's log: the configured store is not in use, nor are its queues
            return StoreQueues.NONE;
        }
        return new StoreQueues(Optional.ofNullable(runs.get(store.kind())).map(Provider::get),
                Optional.ofNullable(executions.get(store.kind())).map(Provider::get));
    }

    /**
     * Where submitted executions' results are kept: the store {@code store.kind} names, when its module registers them
     * under its key (so that they survive a restart), else this process's memory.
     */
    @Provides
    @LazySingleton
    ExecutionResults executionResults(StoreConfig store, Map<String, Provider<ExecutionResults>> stores,
            @Embedded Optional<RunLog> embeddersOwn) {
        Provider<ExecutionResults> stored = embeddersOwn.isPresent() ? null : stores.get(store.kind());
        return stored == null ? new InMemoryExecutionResults() : stored.get();
    }

    /**
     * Where evaluations sent to a server are kept: the store {@code store.kind} names, when its module registers them
     * under its key (they survive a restart), else this process's memory.
     */
    @Provides
    @LazySingleton
    EvaluationLog evaluationLog(StoreConfig store, Map<String, Provider<EvaluationLog>> stores,
            @Embedded Optional<RunLog> embeddersOwn) {
        Provider<EvaluationLog> stored = embeddersOwn.isPresent() ? null : stores.get(store.kind());
        return stored == null ? new InMemoryEvaluationLog() : stored.get();
    }

    @Provides
    Optional<WorkQueue> workQueue(StoreQueues queues) {
        return queues.runs();
    }

    @Provides
    Optional<ExecutionQueue> executionQueue(StoreQueues queues) {
        return queues.executions();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkModule;
    }

    @Override
    public int hashCode() {
        return WorkModule.class.hashCode();
    }
}
