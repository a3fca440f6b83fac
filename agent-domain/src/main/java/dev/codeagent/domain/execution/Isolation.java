package dev.codeagent.domain.execution;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a sandbox actually achieved on this host: its tier and the {@link IsolationFeature isolation
 * features} in force. A feature not listed is not in force. Every tier reports with the same vocabulary,
 * so one question ({@code has(NETWORK_NONE)}) has the same meaning whichever tier answers it.
 *
 * @param tier the sandbox tier ({@code "process"}, {@code "docker"})
 * @param features the features in force
 * @param missing features the tier would provide on a capable host but could not here
 */
public record Isolation(String tier, Set<IsolationFeature> features, Set<IsolationFeature> missing) {

    public Isolation {
        Objects.requireNonNull(tier, "tier");
        features = Set.copyOf(features);
        missing = Set.copyOf(missing);
    }

    /** An isolation report from features given as sets that may be empty. */
    public static Isolation of(String tier, Collection<IsolationFeature> features, Collection<IsolationFeature> missing) {
        return new Isolation(tier, enumSet(features), enumSet(missing));
    }

    private static Set<IsolationFeature> enumSet(Collection<IsolationFeature> c) {
        return c.isEmpty() ? EnumSet.noneOf(IsolationFeature.class) : EnumSet.copyOf(c);
    }

    public boolean has(IsolationFeature feature) {
        return features.contains(feature);
    }

    /** This report with one feature no longer in force (for example the network, for a run granted it). */
    public Isolation without(IsolationFeature feature) {
        Set<IsolationFeature> f = enumSet(features);
        f.remove(feature);
        return new Isolation(tier, f, missing);
    }

    /** Wire names of the features in force, sorted, for display and JSON. */
    public SortedSet<String> sortedFeatures() {
        return names(features);
    }

    /** Wire names of the missing features, sorted, for display and JSON. */
    public SortedSet<String> sortedMissing() {
        return names(missing);
    }

    private static SortedSet<String> names(Set<IsolationFeature> set) {
        SortedSet<String> names = new TreeSet<>();
        set.forEach(f -> names.add(f.wireName()));
        return names;
    }
}
