package dev.codeagent.application.work;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.config.StoreConfig;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.domain.execution.Sandbox;
import java.util.List;

/**
 * {@code sandbox.kind: queue}: programs run on the workers behind the configured store's execution queue, so a
 * front door that only accepts work needs no sandbox of its own.
 */
public final class QueueSandboxModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of();
    }

    /** The store's queues this sandbox is built over. */
    @Override
    protected void configure() {
        install(new WorkModule());
    }

    @ProvidesIntoMap
    @StringMapKey(QueuedSandbox.TIER)
    @LazySingleton
    Sandbox queue(StoreQueues queues, StoreConfig storeConfig, Closer closer) {
        return closer.register(QueuedSandbox.over(queues.executions(), storeConfig.kind()));
    }
}
