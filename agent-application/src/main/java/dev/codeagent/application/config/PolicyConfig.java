package dev.codeagent.application.config;

import dev.codeagent.domain.policy.CodePolicy;
import java.util.List;
import java.util.Set;

/** The static code policy: Python modules and calls refused before a program runs. */
public record PolicyConfig(List<String> forbiddenModules, List<String> forbiddenCalls) {

    public PolicyConfig {
        forbiddenModules = forbiddenModules == null ? List.of() : List.copyOf(forbiddenModules);
        forbiddenCalls = forbiddenCalls == null ? List.of() : List.copyOf(forbiddenCalls);
    }

    public static PolicyConfig defaults() {
        return new PolicyConfig(List.of(), List.of());
    }

    public CodePolicy toPolicy() {
        return new CodePolicy(Set.copyOf(forbiddenModules), Set.copyOf(forbiddenCalls));
    }
}
