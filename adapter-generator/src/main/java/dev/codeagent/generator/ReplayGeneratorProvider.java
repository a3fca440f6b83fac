package dev.codeagent.generator;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.GeneratorProvider;
import dev.codeagent.domain.solving.CodeGenerator;

/**
 * {@code generator.kind: replay}: the {@link ReplayGenerator} over {@code generator.replay.file}. Built
 * only when chosen, so an unset file is an error only for a replay run.
 */
public final class ReplayGeneratorProvider implements GeneratorProvider<ReplayConfig> {

    @Override
    public String key() {
        return "replay";
    }

    @Override
    public ConfigSection<ReplayConfig> config() {
        return ReplayConfig.SECTION;
    }

    @Override
    public CodeGenerator create(ReplayConfig own) {
        return ReplayGenerator.fromConfig(own.file());
    }
}
