package dev.codeagent.application.config;

/**
 * Which code generator writes code. Each generator's own settings are its adapter's section
 * ({@code generator.openai.*}, {@code generator.replay.*}).
 *
 * @param kind the generator adapter's key ({@code openai}, {@code replay})
 */
public record GeneratorConfig(String kind) {

    public GeneratorConfig {
        java.util.Objects.requireNonNull(kind, "generator.kind");
    }

    public static GeneratorConfig defaults() {
        return new GeneratorConfig("openai");
    }
}
