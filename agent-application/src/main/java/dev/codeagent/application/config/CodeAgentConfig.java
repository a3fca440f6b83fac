package dev.codeagent.application.config;

import dev.codeagent.application.spi.ConfigSection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The one configuration of codeagent, read by {@link ConfigLoader} from a YAML or JSON file,
 * environment variables and flags, in rising precedence. Every section has defaults, so an empty
 * file is a working configuration (process sandbox, OpenAI-compatible generator, SQLite store).
 *
 * <p>The application owns only what is shared (the record's typed sections); each adapter and front
 * door owns its own section ({@code sandbox.docker}, {@code http}, …), read with {@link #section}.
 *
 * @param sections the adapters' sections that differ from their defaults, by path; one absent from
 *     here is at its defaults, so that a config has one form whatever the adapters on the class path
 */
public record CodeAgentConfig(
        SandboxConfig sandbox,
        LimitsConfig limits,
        PolicyConfig policy,
        GeneratorConfig generator,
        SolveConfig solve,
        StoreConfig store,
        Map<String, Object> sections) {

    public CodeAgentConfig {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(solve, "solve");
        Objects.requireNonNull(store, "store");
        sections = Map.copyOf(sections);
    }

    public static CodeAgentConfig defaults() {
        return new CodeAgentConfig(SandboxConfig.defaults(), LimitsConfig.defaults(), PolicyConfig.defaults(),
                GeneratorConfig.defaults(), SolveConfig.defaults(), StoreConfig.defaults(), Map.of());
    }

    /**
     * An adapter's section as configured, or its defaults when it was not configured.
     *
     * @return null only for {@link ConfigSection#NONE}
     */
    public <T> T section(ConfigSection<T> section) {
        if (section.isNone()) {
            return null;
        }
        Object value = sections.get(section.path());
        return value == null ? section.defaults() : section.type().cast(value);
    }

    /** This config with one adapter's section replaced, e.g. for an embedding program that builds its config in code. */
    public <T> CodeAgentConfig withSection(ConfigSection<T> section, T value) {
        Objects.requireNonNull(value, section.path());
        Map<String, Object> all = new HashMap<>(sections);
        if (value.equals(section.defaults())) {
            all.remove(section.path());
        } else {
            all.put(section.path(), section.type().cast(value));
        }
        return new CodeAgentConfig(sandbox, limits, policy, generator, solve, store, all);
    }
}
