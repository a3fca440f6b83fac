package dev.codeagent.application.spi;

import dev.codeagent.domain.solving.CodeGenerator;

/**
 * A code generator as a factory: its key ({@code generator.kind}), its own config section, and how it is built. An adapter module's
 * {@link AdapterModule} builds its implementation through its provider, and a plain-Java embedder adds one with
 * {@code CodeAgent.builder(config).provider(...)} (it wins over a discovered adapter of the same key). Adapters on
 * the class path are found as {@link AdapterModule}s, not as providers. No I/O until {@code create}.
 *
 * @param <C> the type of the generator's own config section
 */
public interface GeneratorProvider<C> {

    /** The value of {@code generator.kind} that picks this generator, e.g. {@code openai}. */
    String key();

    /** The generator's own config section (e.g. {@code generator.openai}), or {@link ConfigSection#NONE}. */
    ConfigSection<C> config();

    /**
     * Builds the generator, only when it is the configured one and first needed.
     *
     * @param own its section as configured
     * @throws IllegalArgumentException with a one-line message naming the key when the section cannot work
     */
    CodeGenerator create(C own);
}
