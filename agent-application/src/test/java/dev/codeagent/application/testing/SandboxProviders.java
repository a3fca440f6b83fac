package dev.codeagent.application.testing;

import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.spi.SandboxProvider;
import dev.codeagent.application.spi.SandboxSettings;
import dev.codeagent.domain.execution.Sandbox;
import java.util.function.Supplier;

/** Sandbox tiers for composition tests: a key and what building the sandbox does, no settings. */
public final class SandboxProviders {

    private SandboxProviders() {
    }

    /** A tier under {@code key} whose sandbox is whatever {@code make} gives (or throws). */
    public static SandboxProvider<Void> of(String key, Supplier<Sandbox> make) {
        return new SandboxProvider<>() {
            @Override
            public String key() {
                return key;
            }

            @Override
            public ConfigSection<Void> config() {
                return ConfigSection.NONE;
            }

            @Override
            public Sandbox create(Void own, SandboxSettings shared) {
                return make.get();
            }
        };
    }
}
