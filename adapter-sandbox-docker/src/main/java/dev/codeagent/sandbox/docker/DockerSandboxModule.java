package dev.codeagent.sandbox.docker;

import com.google.inject.AbstractModule;
import com.google.inject.Singleton;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.spi.AdapterModule;

/**
 * Registers the docker tier under the key {@code "docker"} ({@code sandbox.kind: docker}). Nothing
 * touches the engine until the sandbox is asked for.
 */
public final class DockerSandboxModule extends AbstractModule implements AdapterModule {

    @Override
    protected void configure() {
        AdapterBindings.sandbox(binder(), DockerSandbox.TIER).toProvider(DockerSandboxProvider.class).in(Singleton.class);
    }
}
