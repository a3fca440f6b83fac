package dev.codeagent.application.spi;

import dev.codeagent.domain.solving.CodeGenerator;

/**
 * A code generator a distribution may contain, chosen by {@code generator.kind}. Found with
 * {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/dev.codeagent.application.spi.GeneratorProvider}; public no-argument
 * constructor, no I/O until {@link #create}.
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
