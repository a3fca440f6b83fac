package dev.codeagent.application.inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.testing.ScriptedSandbox;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.QueueSandboxModule;
import dev.codeagent.application.work.RunWorker;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Capabilities come from the composition, by the key the config chose: the queues of the store {@code store.kind}
 * names (registered by its module beside its run log), not whatever the run log object happens to implement.
 */
class CapabilitiesTest {

    /** A store that keeps queues for workers, as PostgreSQL does: one object, three faces. */
    interface SharedStore extends RunLog, WorkQueue, ExecutionQueue {
    }

    static final AtomicInteger sandboxesBuilt = new AtomicInteger();

    public static class SharedStoreModule extends AdapterModule {
        final SharedStore store = mock(SharedStore.class);

        @Override
        public List<ConfigSection<?>> sections() {
            return List.of();
        }

        @ProvidesIntoMap
        @StringMapKey("shared")
        RunLog runs() {
            return store;
        }

        @ProvidesIntoMap
        @StringMapKey("shared")
        WorkQueue queue() {
            return store;
        }

        @ProvidesIntoMap
        @StringMapKey("shared")
        ExecutionQueue executions() {
            return store;
        }

        @ProvidesIntoMap
        @StringMapKey("counted")
        @LazySingleton
        Sandbox counted() {
            sandboxesBuilt.incrementAndGet();
            return new ScriptedSandbox(r -> ScriptedSandbox.exited(0, "", ""));
        }

        @ProvidesIntoMap
        @StringMapKey("silent")
        CodeGenerator silent() {
            return request -> "no code";
        }
    }

    private static CodeAgentConfig config(String yaml) {
        return new ConfigLoader(List.of()).parse(yaml);
    }

    private static Composition compose(String yaml, SharedStoreModule module) {
        return Composition.create(config(yaml), List.of(module, new QueueSandboxModule(), new dev.codeagent.application.work.WorkModule()), EmbeddingModule.Embedding.none());
    }

    @Test
    void theChosenStoresQueuesAreOfferedAndAreThatStore() {
        SharedStoreModule module = new SharedStoreModule();
        try (Composition c = compose("sandbox: {kind: counted}\nstore: {kind: shared}", module)) {
            assertThat(c.optional(WorkQueue.class)).containsSame(module.store);
            assertThat(c.optional(ExecutionQueue.class)).containsSame(module.store);
            assertThat(c.get(RunLog.class)).isSameAs(module.store);
        }
    }

    @Test
    void aStoreWithoutQueuesOffersNoneEvenWhenAnotherModuleHasThem() {
        try (Composition c = compose("sandbox: {kind: counted}\nstore: {kind: memory}", new SharedStoreModule())) {
            assertThat(c.optional(WorkQueue.class)).isEmpty();
            assertThat(c.optional(ExecutionQueue.class)).isEmpty();
        }
    }

    @Test
    void anEmbeddersOwnRunLogSharesNothingWithWorkers() {
        SharedStoreModule module = new SharedStoreModule();
        RunLog own = mock(SharedStore.class);
        var embedding = new EmbeddingModule.Embedding(List.of(), List.of(), List.of(), null, own, null);
        try (Composition c = Composition.create(config("sandbox: {kind: counted}\nstore: {kind: shared}"),
                List.of(module, new dev.codeagent.application.work.WorkModule()),
                embedding)) {
            assertThat(c.get(RunLog.class)).isSameAs(own);
            assertThat(c.optional(WorkQueue.class)).isEmpty();
        }
    }

    @Test
    void aWorkerOverAStoreWithoutQueuesIsRefusedBeforeAnySandboxIsBuilt() {
        sandboxesBuilt.set(0);
        try (Composition c = compose("sandbox: {kind: counted}\nstore: {kind: memory}", new SharedStoreModule())) {
            assertThatThrownBy(() -> c.get(RunWorker.class))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("store.kind memory keeps no queue for other processes; a worker needs store.kind: postgres");
            assertThat(sandboxesBuilt).hasValue(0);
        }
    }

    @Test
    void aWorkerWhoseSandboxIsTheQueueIsRefusedRatherThanFeedingItself() {
        try (Composition c = compose("sandbox: {kind: queue}\nstore: {kind: shared}", new SharedStoreModule())) {
            assertThatThrownBy(() -> c.get(RunWorker.class))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("sandbox.kind: queue: a worker runs programs in a sandbox of its own; set sandbox.kind: process or docker");
        }
    }

    @Test
    void theQueueSandboxRunsOnTheChosenStoresQueueAndIsRefusedWithoutOne() {
        try (Composition c = compose("sandbox: {kind: queue}\nstore: {kind: memory}", new SharedStoreModule())) {
            assertThatThrownBy(() -> c.get(Sandbox.class)).isInstanceOf(ConfigException.class)
                    .hasMessageContaining("store.kind 'memory' keeps no queue for other processes");
        }
        try (Composition c = compose("sandbox: {kind: queue}\nstore: {kind: shared}", new SharedStoreModule())) {
            assertThat(c.get(Sandbox.class).tier()).isEqualTo("queue");
        }
    }

    @Test
    void aTierWithoutSessionsOffersNone() {
        try (Composition c = compose("sandbox: {kind: counted}", new SharedStoreModule())) {
            assertThat(c.optional(SessionSandbox.class)).isEmpty();
        }
    }

    @Test
    void theWorkerCountsInTheOneRegistryWhichADoorExports() {
        SharedStoreModule module = new SharedStoreModule();
        when(module.store.depth()).thenReturn(7);
        when(module.store.executionsWaiting()).thenThrow(new IllegalStateException("store down"));
        try (Composition c = compose("sandbox: {kind: counted}\nstore: {kind: shared}\ngenerator: {kind: silent}", module)) {
            SimpleMeterRegistry exported = new SimpleMeterRegistry();
            c.get(CompositeMeterRegistry.class).add(exported);
            RunWorker worker = c.get(RunWorker.class);
            assertThat(c.get(MeterRegistry.class)).isSameAs(c.get(CompositeMeterRegistry.class));

            assertThat(exported.get("codeagent.queue.depth").gauge().value()).isEqualTo(7);
            assertThat(exported.get("codeagent.queue.executions.waiting").gauge().value()).as("an unreadable store").isNaN();
            assertThat(exported.get("codeagent.worker.claims").functionCounter().count()).isZero();
            assertThat(exported.get("codeagent.worker.claim").functionTimer().count()).isZero();
            assertThat(worker.work(true)).isEqualTo(new RunWorker.Worked(0, 0));
        }
    }
}
