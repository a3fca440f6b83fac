package dev.codeagent.domain.execution;

import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a sandbox actually achieved on this host: its tier and the isolation features in force
 * (for example {@code rlimits}, {@code pid-ns}, {@code net-ns}, {@code mount-ns},
 * {@code unprivileged-uid}, {@code cgroup-memory}). A feature not listed is not in force.
 *
 * @param tier the sandbox tier ({@code "process"}, {@code "docker"})
 * @param features the features in force, sorted
 * @param missing features the tier would provide on a capable host but could not here, sorted
 */
public record Isolation(String tier, Set<String> features, Set<String> missing) {

    public Isolation {
        Objects.requireNonNull(tier, "tier");
        features = Set.copyOf(features);
        missing = Set.copyOf(missing);
    }

    public boolean has(String feature) {
        return features.contains(feature);
    }

    /** Features in force, sorted, for display and JSON. */
    public Set<String> sortedFeatures() {
        return new TreeSet<>(features);
    }

    /** Missing features, sorted, for display and JSON. */
    public Set<String> sortedMissing() {
        return new TreeSet<>(missing);
    }
}
