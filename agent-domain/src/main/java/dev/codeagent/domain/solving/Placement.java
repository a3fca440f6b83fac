package dev.codeagent.domain.solving;

import java.util.Objects;

/**
 * Where an attempt was made: the machine and process that generated, ran and judged it, and the sandbox tier its
 * program ran in. With workers on many machines this is how a run's history says which one did what.
 *
 * @param host the machine's host name
 * @param pid the process on it
 * @param tier the sandbox tier of that process ({@code process}, {@code docker}, ...)
 */
public record Placement(String host, long pid, String tier) {

    public Placement {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(tier, "tier");
        if (pid < 1) {
            throw new IllegalArgumentException("pid must be positive, was " + pid);
        }
    }

    /** {@code worker-2 pid 4711, tier process}: one line for listings and the stores' columns. */
    public String describe() {
        return host + " pid " + pid + ", tier " + tier;
    }
}
