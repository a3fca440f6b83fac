package dev.codeagent.application.spi;

import com.google.inject.AbstractModule;
import java.util.List;

/**
 * What an adapter module contributes to the composition: a Guice module whose {@code @ProvidesIntoMap} methods
 * register its implementation under the key the config chooses it by ({@code @StringMapKey("process")} into the
 * map of {@link dev.codeagent.domain.execution.Sandbox}es, {@code "sqlite"} into the {@link
 * dev.codeagent.domain.solving.RunLog}s, …), and the config sections those methods read.
 *
 * <p>Found with {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/dev.codeagent.application.spi.AdapterModule}; public no-argument constructor. The
 * sections are declared here, not discovered from the bindings, because the config is read and validated before any
 * injector exists: a misspelled key fails in one line naming it, never as a Guice error. The composition binds each
 * section's record to its configured value, so a provider method simply takes it as a parameter.
 *
 * <p>Rules for the provider methods: {@code @LazySingleton} from {@code dev.codeagent.application.inject} (an unconfigured
 * adapter is never built), no I/O in {@code configure()}, no conditional logic (the config's choice is made at the root), and whatever they make
 * that must be closed goes through {@code Closer.register}.
 */
public abstract class AdapterModule extends AbstractModule {

    /** The config sections this module's providers read (e.g. {@code sandbox.docker}); empty when none. */
    public abstract List<ConfigSection<?>> sections();
}
