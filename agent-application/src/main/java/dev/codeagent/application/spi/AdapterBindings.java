package dev.codeagent.application.spi;

import com.google.inject.Binder;
import com.google.inject.binder.LinkedBindingBuilder;
import com.google.inject.multibindings.MapBinder;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.RunLog;

/**
 * Where adapters register their implementations under config keys ({@code sandbox.kind},
 * {@code generator.kind}, {@code store.kind}). Bind to a provider so that only the configured
 * implementation is ever built, e.g.
 * {@code AdapterBindings.sandbox(binder(), "process").toProvider(ProcessSandboxProvider.class).in(Singleton.class)}.
 */
public final class AdapterBindings {

    private AdapterBindings() {
    }

    public static MapBinder<String, Sandbox> sandboxes(Binder binder) {
        return MapBinder.newMapBinder(binder, String.class, Sandbox.class);
    }

    public static MapBinder<String, CodeGenerator> generators(Binder binder) {
        return MapBinder.newMapBinder(binder, String.class, CodeGenerator.class);
    }

    public static MapBinder<String, RunLog> runLogs(Binder binder) {
        return MapBinder.newMapBinder(binder, String.class, RunLog.class);
    }

    public static LinkedBindingBuilder<Sandbox> sandbox(Binder binder, String key) {
        return sandboxes(binder).addBinding(key);
    }

    public static LinkedBindingBuilder<CodeGenerator> generator(Binder binder, String key) {
        return generators(binder).addBinding(key);
    }

    public static LinkedBindingBuilder<RunLog> runLog(Binder binder, String key) {
        return runLogs(binder).addBinding(key);
    }
}
