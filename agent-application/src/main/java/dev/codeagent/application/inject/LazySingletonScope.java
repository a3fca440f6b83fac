package dev.codeagent.application.inject;

import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.Scope;
import com.google.inject.Scopes;

/**
 * The scope behind {@link LazySingleton}: Guice's singleton scope (thread-safe, a failed provision is not
 * remembered, so the next call tries again), but as an instance of its own, which Guice never treats as eager.
 */
final class LazySingletonScope implements Scope {

    static final Scope INSTANCE = new LazySingletonScope();

    private LazySingletonScope() {
    }

    @Override
    public <T> Provider<T> scope(Key<T> key, Provider<T> unscoped) {
        return Scopes.SINGLETON.scope(key, unscoped);
    }

    @Override
    public String toString() {
        return "LazySingleton";
    }
}
