package dev.codeagent.application.spi;

import com.google.inject.Module;

/**
 * A Guice module an adapter contributes, found with {@link java.util.ServiceLoader} (list the class in
 * {@code META-INF/services/dev.codeagent.application.spi.AdapterModule}). It registers its
 * implementation under a config key through {@link AdapterBindings}; it must do no I/O in
 * {@code configure()} — expensive clients belong in providers, which run only for the configured key.
 */
public interface AdapterModule extends Module {
}
