package dev.codeagent.generator;

import com.google.inject.multibindings.ProvidesIntoMap;
import com.google.inject.multibindings.StringMapKey;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.domain.solving.CodeGenerator;
import java.util.List;

/**
 * {@code generator.kind: openai} (the {@link OpenAiCompatibleGenerator}, from {@code generator.openai}) and
 * {@code generator.kind: replay} (the {@link ReplayGenerator} over {@code generator.replay.file}). Each is built only
 * when chosen and first needed, so a missing API key or an unset replay file fails only the run that needs it.
 */
public final class GeneratorModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(OpenAiConfig.SECTION, ReplayConfig.SECTION);
    }

    @ProvidesIntoMap
    @StringMapKey("openai")
    @LazySingleton
    CodeGenerator openai(OpenAiConfig own, Closer closer) {
        return closer.register(new OpenAiGeneratorProvider().create(own));
    }

    @ProvidesIntoMap
    @StringMapKey("replay")
    @LazySingleton
    CodeGenerator replay(ReplayConfig own, Closer closer) {
        return closer.register(new ReplayGeneratorProvider().create(own));
    }
}
