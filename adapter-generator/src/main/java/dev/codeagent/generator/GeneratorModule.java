package dev.codeagent.generator;

import com.google.inject.AbstractModule;
import com.google.inject.Singleton;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.AdapterBindings;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.domain.solving.CodeGenerator;
import jakarta.inject.Inject;
import jakarta.inject.Provider;

/**
 * Registers the generators under {@code generator.kind}: {@code "openai"} ({@link OpenAiCompatibleGenerator})
 * and {@code "replay"} ({@link ReplayGenerator}). Found through {@link java.util.ServiceLoader}; each
 * generator is built only when its key is the configured one, so a replay run needs no endpoint
 * settings and an OpenAI run no replay file.
 */
public final class GeneratorModule extends AbstractModule implements AdapterModule {

    @Override
    protected void configure() {
        AdapterBindings.generator(binder(), "openai").toProvider(OpenAiProvider.class).in(Singleton.class);
        AdapterBindings.generator(binder(), "replay").toProvider(ReplayProvider.class).in(Singleton.class);
    }

    /** Builds the OpenAI-compatible generator from {@code generator.openai}. */
    static final class OpenAiProvider implements Provider<CodeGenerator> {
        private final CodeAgentConfig config;

        @Inject
        OpenAiProvider(CodeAgentConfig config) {
            this.config = config;
        }

        @Override
        public CodeGenerator get() {
            return new OpenAiCompatibleGenerator(config.generator().openai());
        }
    }

    /** Builds the replay generator from {@code generator.replay.file}. */
    static final class ReplayProvider implements Provider<CodeGenerator> {
        private final CodeAgentConfig config;

        @Inject
        ReplayProvider(CodeAgentConfig config) {
            this.config = config;
        }

        @Override
        public CodeGenerator get() {
            return ReplayGenerator.fromConfig(config.generator().replay() == null ? null : config.generator().replay().file());
        }
    }
}
