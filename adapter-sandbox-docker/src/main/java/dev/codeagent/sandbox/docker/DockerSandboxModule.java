package dev.codeagent.sandbox.docker;

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
 * The docker tier as {@code sandbox.kind: docker}, from {@code sandbox.docker}, the isolation mode and the default
 * limits (what the warm pool is prepared for). Nothing touches the engine until the sandbox is asked for.
 */
public final class DockerSandboxModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(DockerSandboxConfig.SECTION);
    }

    @ProvidesIntoMap
    @StringMapKey(DockerSandbox.TIER)
    @LazySingleton
    Sandbox docker(DockerSandboxConfig own, SandboxSettings shared, Closer closer) {
        return closer.register(new DockerSandboxProvider().create(own, shared));
    }
}
