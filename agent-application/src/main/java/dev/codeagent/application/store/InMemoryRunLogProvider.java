package dev.codeagent.application.store;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.RunLogProvider;
import dev.codeagent.domain.solving.RunLog;

/** {@code store.kind: memory}: runs kept for the life of the process, nothing to configure. */
public final class InMemoryRunLogProvider implements RunLogProvider<Void> {

    public static final String KEY = "memory";

    @Override
    public String key() {
        return KEY;
    }

    @Override
    public ConfigSection<Void> config() {
        return ConfigSection.NONE;
    }

    @Override
    public RunLog create(Void own) {
        return new InMemoryRunLog();
    }
}
