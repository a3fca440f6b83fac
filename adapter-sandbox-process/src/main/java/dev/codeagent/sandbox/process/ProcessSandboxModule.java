package dev.codeagent.sandbox.process;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;
import java.util.List;

/**
 * The process tier as {@code sandbox.kind: process}, from {@code sandbox.process}. Nothing is probed until the kind
 * picks it and something asks for it.
 */
public final class ProcessSandboxModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(ProcessSandboxConfig.SECTION);
    }

    @ProvidesIntoMap
    @StringMapKey(ProcessSandboxProvider.KEY)
    @LazySingleton
    Sandbox process(ProcessSandboxConfig own, SandboxSettings shared, Closer closer) {
        return closer.register(new ProcessSandboxProvider().create(own, shared));
    }
}
