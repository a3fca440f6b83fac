package dev.codeagent.application.inject;

import com.google.inject.Module;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.Adapters;
import dev.codeagent.application.spi.ConfigSection;
import java.util.ArrayList;
import java.util.List;

/**
 * codeagent for a program that composes with Guice itself: install this into your injector, override the generator
 * (or the run log, or the sandbox) with {@code OptionalBinder.newOptionalBinder(binder(), CodeGenerator.class)
 * .setBinding()…}, ask for {@link dev.codeagent.application.execute.ExecuteCode} or {@link
 * dev.codeagent.application.solve.SolveTask}, and close the {@link Closer} when done.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(CodeAgentModules.of(config), new AbstractModule() {
 *     @Override protected void configure() {
 *         OptionalBinder.newOptionalBinder(binder(), CodeGenerator.class).setBinding().toInstance(myLlm);
 *     }
 * });
 * }</pre>
 *
 * The config must have been read with the same adapters on the class path ({@code new ConfigLoader()}), so that
 * every adapter's section was validated before this point.
 */
public final class CodeAgentModules {

    private CodeAgentModules() {
    }

    /** The core and every adapter module on the class path, for {@code config}; what they open goes to a new {@link Closer}. */
    public static Module of(CodeAgentConfig config) {
        return of(config, Adapters.discover().modules(), new Closer());
    }

    /** The core and {@code adapters}, for {@code config}; what they open is registered with {@code closer}. */
    public static Module of(CodeAgentConfig config, List<? extends AdapterModule> adapters, Closer closer) {
        List<ConfigSection<?>> sections = new ArrayList<>();
        adapters.forEach(a -> sections.addAll(a.sections()));
        List<Module> all = new ArrayList<>();
        all.add(new CoreModule(config, sections, closer));
        all.addAll(adapters);
        return binder -> all.forEach(binder::install);
    }
}
