package dev.codeagent.application.session;

import com.google.inject.multibindings.OptionalBinder;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import java.util.List;

/**
 * The session registry, {@link OpenSessions}, one per composition, and its {@link SessionPlaces}: by default those of
 * a door with one owner in its process ({@link SessionPlaces#ONE_OWNER}); a door that serves many owners (the HTTP
 * server) sets its own with {@link OptionalBinder#setBinding()}.
 *
 * <p>Here rather than in {@code CoreModule}, listed for discovery as {@code WorkModule} is: this package uses the
 * inject package ({@link LazySingleton}, the {@code Closer}), so the root must not depend back on it. Every instance is
 * equal, so installing it twice binds once.
 */
public final class SessionModule extends AdapterModule {

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of();
    }

    @Override
    protected void configure() {
        OptionalBinder.newOptionalBinder(binder(), SessionPlaces.class).setDefault().toInstance(SessionPlaces.ONE_OWNER);
        bind(OpenSessions.class).in(LazySingleton.class);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionModule;
    }

    @Override
    public int hashCode() {
        return SessionModule.class.hashCode();
    }
}
