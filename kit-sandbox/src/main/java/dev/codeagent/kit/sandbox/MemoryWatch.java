package dev.codeagent.kit.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Decides, from a run's memory control group read by the host (the process tier's run group, a container's group),
 * the moment a run has used up its memory, so that it ends as MEMORY_LIMIT at once instead of whenever the kernel
 * gives up. With swap off, a group at its limit is not OOM-killed while reclaim still finds file pages: the runtime's
 * own code and libraries are evicted and read back again and again, and the run crawls for seconds (C and Go were
 * killed ~3 s after the breach) until the time limit ends it as TIME_LIMIT. Two signs end it here, both read from
 * where the program cannot write:
 * <ul>
 *   <li>exhausted: the memory reclaim cannot give back (everything but file cache: anonymous and tmpfs/shm/memfd
 *       pages, kernel memory) has reached the run's limit (the requested limit plus what the group held before the
 *       program, capped a little under the group's hard limit);</li>
 *   <li>thrashing: the group stood at its hard limit while file pages it had evicted were read back (more than
 *       {@link #THRASH_REFAULT_BYTES} each reading) for {@link #THRASH_READINGS} readings in a row.</li>
 * </ul>
 * Not thread-safe: one per run, fed by the thread that watches the run.
 */
public final class MemoryWatch {

    /** File pages read back between two readings that count as thrashing (a runtime re-reading its own code). */
    static final long THRASH_REFAULT_BYTES = 1L << 20;
    /** Readings in a row at the limit and thrashing before the run is ended (about 60 ms at a 20 ms poll). */
    static final int THRASH_READINGS = 3;
    private static final long PAGE = 4096;

    /**
     * One reading of a memory group.
     *
     * @param reclaimableKernel kernel memory charged to the group that reclaim gives back at the limit (v2: reclaimable
     *     slab; v1, which does not split it: all kernel memory), never the run's memory: a loop of {@code stat()} on
     *     missing names fills hundreds of MiB with negative dentries, and was ended as MEMORY_LIMIT using next to
     *     nothing. Kernel memory that is not reclaimable stays bounded by the group's hard limit (the kernel's OOM kill).
     */
    public record Reading(long usage, long limit, long fileBytes, long refaultedFilePages, long reclaimableKernel) {

        public Reading(long usage, long limit, long fileBytes, long refaultedFilePages) {
            this(usage, limit, fileBytes, refaultedFilePages, 0);
        }

        /** What reclaim cannot give back without swap: all but file cache and reclaimable kernel memory. */
        public long unreclaimable() {
            return Math.max(0, usage - fileBytes - reclaimableKernel);
        }

        /** Whether the group stands at its hard limit (within what the kernel charges in batches). */
        boolean atLimit() {
            return limit - usage <= slack(limit);
        }
    }

    private final long threshold;
    private Reading last;
    private int thrashing;
    private String reason;

    /**
     * @param requested the run's memory limit as requested
     * @param base what the group held that is not the program's before it started ({@link Reading#unreclaimable()}
     *     of a pre-started container's idle supervisor), or 0
     * @param groupLimit the group's hard limit
     */
    public MemoryWatch(long requested, long base, long groupLimit) {
        this.threshold = Math.max(0, base) + room(requested, base, groupLimit);
    }

    /**
     * How much memory a run gets above {@code base} (what the group held that is not the run's) before it is used up:
     * its request, less what of it the group's hard limit cannot hold beside the base.
     */
    public static long room(long requested, long base, long groupLimit) {
        return Math.min(requested + Math.max(0, base), groupLimit - slack(groupLimit)) - Math.max(0, base);
    }

    /** How close to its limit a group's usage is when reclaim holds it there: a few charge batches, 1/64 of large limits. */
    static long slack(long limit) {
        return Math.max(2L << 20, limit / 64);
    }

    /** Whether the run has used up its memory as of {@code now}; {@link #reason()} then says how. */
    public boolean exhausted(Reading now) {
        if (now.unreclaimable() >= threshold) {
            reason = "exhausted";
            return true;
        }
        boolean refaulting = last != null
                && (now.refaultedFilePages() - last.refaultedFilePages()) * PAGE >= THRASH_REFAULT_BYTES;
        thrashing = now.atLimit() && refaulting ? thrashing + 1 : 0;
        last = now;
        if (thrashing >= THRASH_READINGS) {
            reason = "thrashing";
            return true;
        }
        return false;
    }

    /**
     * Whether the group's whole charge ({@code usage}, one small file to read) already settles that the run has not
     * used up its memory: what reclaim cannot give back is part of the charge, so a charge under the threshold is not
     * exhausted, and, the threshold lying at least {@link #slack} under the hard limit, not at the limit, so not
     * thrashing. The full reading ({@link #read}: the charge, the limit and memory.stat's forty lines) then waits for
     * a poll where it may matter. Such a poll starts the thrash count over, so a run that thrashes after one is found
     * a reading later than by full readings alone.
     */
    public boolean plainlyUnder(long usage) {
        if (usage < threshold) {
            thrashing = 0;
            last = null;
            return true;
        }
        return false;
    }

    /** How the run used up its memory ("exhausted" or "thrashing"), or null while it has not. */
    public String reason() {
        return reason;
    }

    /** The bytes of unreclaimable memory that count as the run's memory used up. */
    public long threshold() {
        return threshold;
    }

    /**
     * Reads the memory group at {@code dir}: cgroup v1 ({@code memory.usage_in_bytes}, {@code memory.stat}'s
     * {@code total_*} figures) or v2 ({@code memory.current}, {@code memory.stat}); empty when it cannot be read
     * (the group is gone, or is no memory group).
     */
    public static Optional<Reading> read(Path dir) {
        try {
            boolean v1 = Files.exists(dir.resolve("memory.usage_in_bytes"));
            long usage = number(dir.resolve(v1 ? "memory.usage_in_bytes" : "memory.current"));
            long limit = number(dir.resolve(v1 ? "memory.limit_in_bytes" : "memory.max"));
            String stat = Files.readString(dir.resolve("memory.stat"), StandardCharsets.US_ASCII);
            String prefix = v1 ? "total_" : "";
            long file = stat(stat, prefix + "active_file") + stat(stat, prefix + "inactive_file");
            long refaults = stat(stat, prefix + "workingset_refault_file");
            if (refaults < 0) {
                // before 5.9 one count for both kinds of page
                refaults = stat(stat, prefix + "workingset_refault");
            }
            long kernel = v1 ? optionalNumber(dir.resolve("memory.kmem.usage_in_bytes")) : stat(stat, "slab_reclaimable");
            return Optional.of(new Reading(usage, limit, Math.max(0, file), Math.max(0, refaults), Math.max(0, kernel)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The number in {@code file}, or 0 when there is no such file (a kernel without kernel-memory accounting); one read,
     * no stat before it: this is on every 20 ms poll of every run.
     */
    private static long optionalNumber(Path file) throws IOException {
        try {
            return number(file);
        } catch (java.nio.file.NoSuchFileException e) {
            return 0;
        }
    }

    private static long number(Path file) throws IOException {
        String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
        return s.equals("max") ? Long.MAX_VALUE : Long.parseLong(s);
    }

    /** The value of {@code key} in memory.stat, or -1. */
    static long stat(String stat, String key) {
        int at = stat.startsWith(key + " ") ? 0 : stat.indexOf("\n" + key + " ") + 1;
        if (at == 0 && !stat.startsWith(key + " ")) {
            return -1;
        }
        int end = stat.indexOf('\n', at);
        return Long.parseLong(stat.substring(at + key.length() + 1, end < 0 ? stat.length() : end).trim());
    }
}
