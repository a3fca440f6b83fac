package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Uids the sandbox must not take for its runs: accounts in /etc/passwd, subordinate ranges in
 * /etc/subuid and /etc/subgid (rootless containers map users there), and uids that have processes now.
 */
final class ForeignUids {

    private final List<long[]> ranges;

    private ForeignUids(List<long[]> ranges) {
        this.ranges = List.copyOf(ranges);
    }

    static ForeignUids load() {
        List<long[]> r = new ArrayList<>();
        read(Path.of("/etc/passwd"), r, 2, -1);
        read(Path.of("/etc/group"), r, 2, -1);
        read(Path.of("/etc/subuid"), r, 1, 2);
        read(Path.of("/etc/subgid"), r, 1, 2);
        return new ForeignUids(r);
    }

    /** Whether the uid (used as gid as well) belongs to something else on this host. */
    boolean taken(long uid) {
        for (long[] range : ranges) {
            if (uid >= range[0] && uid < range[0] + range[1]) {
                return true;
            }
        }
        return !HostProcesses.ofUid(uid).isEmpty();
    }

    /** Colon-separated lines: the id at field {@code idField}, the range length at {@code countField} (or 1). */
    private static void read(Path file, List<long[]> into, int idField, int countField) {
        if (!Files.isReadable(file)) {
            return;
        }
        try {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split(":");
                if (f.length <= Math.max(idField, countField)) {
                    continue;
                }
                try {
                    long id = Long.parseLong(f[idField].trim());
                    long count = countField < 0 ? 1 : Long.parseLong(f[countField].trim());
                    into.add(new long[] {id, count});
                } catch (NumberFormatException notAnId) {
                    // a user name in the id field of subuid: its range still counts below
                }
            }
        } catch (IOException unreadable) {
            // nothing known to avoid from this file
        }
    }
}
