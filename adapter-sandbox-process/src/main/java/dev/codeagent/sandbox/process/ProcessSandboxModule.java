package dev.codeagent.sandbox.process;

import com.google.inject.AbstractModule;
import com.google.inject.Provider;
import com.google.inject.Singleton;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.domain.execution.Sandbox;
import jakarta.inject.Inject;

/**
 * Registers {@link ProcessSandbox} under the config key {@code process}. Nothing is probed here: the
 * sandbox is built (and the host probed) only when {@code sandbox.kind} picks it.
 */
public final class ProcessSandboxModule extends AbstractModule implements AdapterModule {

    public static final String KEY = "process";

    @Override
    protected void configure() {
        AdapterBindings.sandbox(binder(), KEY).toProvider(ProcessSandboxProvider.class).in(Singleton.class);
    }

    /** Builds the sandbox from {@code sandbox.process} and {@code sandbox.isolation}. */
    static final class ProcessSandboxProvider implements Provider<Sandbox> {

        private final CodeAgentConfig config;

        @Inject
        ProcessSandboxProvider(CodeAgentConfig config) {
            this.config = config;
        }

        @Override
        public Sandbox get() {
            return ProcessSandbox.create(config);
        }
    }
}
