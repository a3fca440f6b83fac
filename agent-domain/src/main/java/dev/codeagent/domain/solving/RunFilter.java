package dev.codeagent.domain.solving;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Which runs a listing selects: one owner's or everyone's, of some statuses or of all. A store answers it in its
 * query, so that a page of a rare status among many runs is as full as the store has them.
 *
 * @param owner the {@linkplain Run#owner owner} whose runs are selected, or null for every run (an operator's view)
 * @param statuses the statuses selected; empty selects every status
 */
public record RunFilter(String owner, Set<RunStatus> statuses) {

    /** Every run. */
    public static final RunFilter ALL = new RunFilter(null, Set.of());

    public RunFilter {
        Objects.requireNonNull(statuses, "statuses");
        // EnumSet: iterated in declaration order, so a store builds the same query text for the same filter
        statuses = statuses.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(statuses));
    }

    /** Every run of this owner. */
    public static RunFilter ownedBy(String owner) {
        return new RunFilter(Objects.requireNonNull(owner, "owner"), Set.of());
    }

    /** The same owner, of these statuses only (none: every status). */
    public RunFilter withStatuses(Set<RunStatus> statuses) {
        return new RunFilter(owner, statuses);
    }

    /** Whether the filter selects this run. */
    public boolean selects(Run run) {
        return (owner == null || owner.equals(run.owner())) && (statuses.isEmpty() || statuses.contains(run.status()));
    }

    /** Whether the run is the filter owner's (any run when the filter has none), whatever its status. */
    public boolean owns(Run run) {
        return owner == null || owner.equals(run.owner());
    }
}
