package dev.codeagent.application.spi;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How much isolation a sandbox must insist on ({@code sandbox.isolation}); every sandbox adapter is
 * told it through {@link SandboxSettings}.
 */
public enum IsolationMode {
    /** Refuse to start unless every isolation feature of the tier is in force. */
    @JsonProperty("strict")
    STRICT,
    /** Start with what the host allows and report what is missing. */
    @JsonProperty("best-effort")
    BEST_EFFORT
}
