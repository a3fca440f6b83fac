package dev.codeagent.generator;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.GeneratorProvider;
import dev.codeagent.domain.solving.CodeGenerator;

/** {@code generator.kind: openai}: the {@link OpenAiCompatibleGenerator}, from {@code generator.openai}. */
public final class OpenAiGeneratorProvider implements GeneratorProvider<OpenAiConfig> {

    @Override
    public String key() {
        return "openai";
    }

    @Override
    public ConfigSection<OpenAiConfig> config() {
        return OpenAiConfig.SECTION;
    }

    @Override
    public CodeGenerator create(OpenAiConfig own) {
        return new OpenAiCompatibleGenerator(own);
    }
}
