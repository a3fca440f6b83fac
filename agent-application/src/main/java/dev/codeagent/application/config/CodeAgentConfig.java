package dev.codeagent.application.config;

import java.util.Objects;

/**
 * The one configuration of codeagent, read by {@link ConfigLoader} from a YAML or JSON file,
 * environment variables and flags, in rising precedence. Every section has defaults, so an empty
 * file is a working configuration (process sandbox, OpenAI-compatible generator, SQLite store).
 */
public record CodeAgentConfig(
        SandboxConfig sandbox,
        LimitsConfig limits,
        PolicyConfig policy,
        GeneratorConfig generator,
        SolveConfig solve,
        StoreConfig store,
        HttpConfig http) {

    public CodeAgentConfig {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(generator, "generator");
        Objects.requireNonNull(solve, "solve");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(http, "http");
    }

    public static CodeAgentConfig defaults() {
        return new CodeAgentConfig(SandboxConfig.defaults(), LimitsConfig.defaults(), PolicyConfig.defaults(),
                GeneratorConfig.defaults(), SolveConfig.defaults(), StoreConfig.defaults(), HttpConfig.defaults());
    }
}
