package dev.codeagent.cli;

import dev.codeagent.domain.execution.Isolation;
import java.io.PrintWriter;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The one stderr line the command line prints after every run that lacked an isolation guarantee its tier gives on a
 * capable host. The command line keeps {@code sandbox.isolation: best-effort} (one user trying code on a laptop), but
 * never quietly: a run without control groups, say, has no whole-run memory or CPU limit, and the JSON's
 * {@code isolation} list alone was too easy to miss. The serving doors are strict instead (they refuse to start).
 */
final class IsolationWarning {

    private IsolationWarning() {
    }

    /** The line for runs that ran under these reports (null entries ignored), or empty when none lacked anything. */
    static Optional<String> line(Collection<Isolation> reports) {
        SortedSet<String> missing = new TreeSet<>();
        SortedSet<String> tiers = new TreeSet<>();
        reports.stream().filter(Objects::nonNull).filter(i -> !i.missing().isEmpty()).forEach(i -> {
            missing.addAll(i.sortedMissing());
            tiers.add(i.tier());
        });
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("codeagent: warning: this run had no " + String.join(", ", missing) + " (the "
                + String.join(" and ", tiers) + " sandbox cannot give " + (missing.size() == 1 ? "it" : "them")
                + " on this host: see docs/security-model.md); --set sandbox.isolation=strict refuses to run without "
                + (missing.size() == 1 ? "it" : "them"));
    }

    static void print(PrintWriter err, Collection<Isolation> reports) {
        line(reports).ifPresent(l -> {
            err.println(l);
            err.flush();
        });
    }
}
