package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.MemoryWatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A run group on cgroup v1, where each controller is its own hierarchy: one directory under each of the
 * memory, pids and cpuacct hierarchies (and freezer, where mounted, to stop a fork loop while it is
 * killed). The launcher joins them all at once, so they hold the same processes.
 */
final class CgroupV1Group implements ChildGroup {

    private final Path memory;
    private final Path pids;
    private final Path cpuacct;
    private final Path freezer;
    /** Distinct directories: cpu and cpuacct (or others) may share one hierarchy. */
    private final Set<Path> dirs;
    /** Whether the kernel accounts swap (memory.memsw.*): fixed for the group's life, so asked once, not at every poll. */
    private final boolean memsw;
    /**
     * The hard limit as the kernel holds it (page-rounded), or -1 until read; reset whenever the limits are set. Kept
     * because {@link #memoryLimitHits} compares the charge with it at every poll.
     */
    private volatile long limitRead = -1;

    private CgroupV1Group(Path memory, Path pids, Path cpuacct, Path freezer) {
        this.memory = memory;
        this.pids = pids;
        this.cpuacct = cpuacct;
        this.freezer = freezer;
        this.dirs = new LinkedHashSet<>();
        dirs.add(memory);
        dirs.add(pids);
        dirs.add(cpuacct);
        if (freezer != null) {
            dirs.add(freezer);
        }
        // asked of the parent, which exists: the group's own directory is made after this (every group of the
        // hierarchy has the files when the kernel accounts swap; asked of the group, no run ever got its memsw limit)
        this.memsw = Files.exists(memory.getParent().resolve("memory.memsw.limit_in_bytes"));
    }

    /**
     * Makes the directories and sets the limits; on any failure removes what it made.
     *
     * @param freezer the group's directory under the freezer hierarchy, or null where there is none
     */
    static CgroupV1Group create(Path memory, Path pids, Path cpuacct, Path freezer, long memoryBytes, int maxProcesses)
            throws IOException {
        CgroupV1Group g = new CgroupV1Group(memory, pids, cpuacct, freezer);
        try {
            for (Path d : g.dirs) {
                Files.createDirectory(d);
            }
            g.setLimits(memoryBytes, maxProcesses);
            return g;
        } catch (IOException | RuntimeException e) {
            for (Path d : g.dirs) {
                Files.deleteIfExists(d);
            }
            throw e;
        }
    }

    private void setLimits(long memoryBytes, int maxProcesses) throws IOException {
        Path limit = memory.resolve("memory.limit_in_bytes");
        Path memswLimit = memory.resolve("memory.memsw.limit_in_bytes");
        limitRead = -1;
        if (memsw) {
            // memory + swap = memory: the group can never use swap. The kernel keeps memsw >= memory at every
            // step, so a raise moves memsw first and a cut moves memory first.
            boolean raise = memoryBytes > CgroupFiles.readLong(limit);
            CgroupFiles.write(raise ? memswLimit : limit, Long.toString(memoryBytes));
            CgroupFiles.write(raise ? limit : memswLimit, Long.toString(memoryBytes));
        } else {
            CgroupFiles.write(limit, Long.toString(memoryBytes));
            // no swap accounting in this kernel: at least never choose swap when reclaiming for this group
            CgroupFiles.write(memory.resolve("memory.swappiness"), "0");
        }
        CgroupFiles.write(pids.resolve("pids.max"), Integer.toString(maxProcesses));
    }

    @Override
    public void limit(long memoryBytes, int maxProcesses) throws IOException {
        setLimits(memoryBytes, maxProcesses);
    }

    @Override
    public void resetPeak() {
        try {
            CgroupFiles.write(memory.resolve("memory.max_usage_in_bytes"), "0");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reset the peak of " + memory, e);
        }
    }

    @Override
    public List<Path> procsFiles() {
        List<Path> files = new ArrayList<>();
        for (Path d : dirs) {
            files.add(d.resolve("cgroup.procs"));
        }
        return files;
    }

    @Override
    public long cpuNanos() {
        return CgroupFiles.readLong(cpuacct.resolve("cpuacct.usage"));
    }

    @Override
    public long peakMemoryBytes() {
        return CgroupFiles.readLong(memory.resolve("memory.max_usage_in_bytes"));
    }

    @Override
    public Optional<MemoryWatch.Reading> memory() {
        return MemoryWatch.read(memory);
    }

    @Override
    public long memoryUsage() {
        return CgroupFiles.readLong(memory.resolve("memory.usage_in_bytes"));
    }

    @Override
    public long memoryLimit() {
        long l = limitRead;
        if (l < 0) {
            l = CgroupFiles.readLong(memory.resolve("memory.limit_in_bytes"));
            limitRead = l;
        }
        return l;
    }

    @Override
    public boolean outOfMemory() {
        return CgroupFiles.keyed(memory.resolve("memory.oom_control"), "under_oom").orElse(0) > 0;
    }

    /** How close to its limit a group's usage is when reclaim holds it there (a few charge batches of 64 pages). */
    private static final long AT_LIMIT_SLACK_BYTES = 2L * 1024 * 1024;

    /** Times this group was found at its memory limit (see {@link #memoryLimitHits}). */
    private long atLimitSeen;

    @Override
    public long memoryLimitHits() {
        // memory + swap is limited to the memory limit and the kernel charges memsw first, so a refused charge may
        // count in memsw's failcnt only; and kernels of the 6.x series keep neither count for v1 groups (both stay 0
        // while the OOM killer strikes). So a group found at its limit when asked counts as one more hit: charges
        // come in batches and reclaim keeps a held group within a few of them of the limit.
        long counted = CgroupFiles.readLong(memory.resolve("memory.failcnt"))
                + (memsw ? CgroupFiles.readLong(memory.resolve("memory.memsw.failcnt")) : 0);
        long limit = memoryLimit();
        long usage = memoryUsage();
        if (limit - usage <= Math.max(AT_LIMIT_SLACK_BYTES, limit / 64)) {
            atLimitSeen++;
        }
        return counted + atLimitSeen;
    }
    @Override
    public boolean oomKilled() {
        OptionalLong kills = CgroupFiles.keyed(memory.resolve("memory.oom_control"), "oom_kill");
        if (kills.isPresent()) {
            return kills.getAsLong() > 0;
        }
        // kernels before 4.13 keep no count of kills: the limit having been hit at all is the nearest sign
        return memoryLimitHits() > 0;
    }

    @Override
    public List<Long> pids() {
        return CgroupFiles.pids(procsFiles());
    }

    @Override
    public boolean killAll() {
        if (freezer == null || pids().isEmpty()) {
            return CgroupFiles.killUntilEmpty(this::pids);
        }
        // frozen, the group cannot fork while its pids are listed and killed; the kills land on thaw
        Path state = freezer.resolve("freezer.state");
        try {
            CgroupFiles.write(state, "FROZEN");
            long deadline = System.currentTimeMillis() + 1_000;
            while (!CgroupFiles.read(state).equals("FROZEN") && System.currentTimeMillis() < deadline) {
                CgroupFiles.pause();
            }
            for (long pid : pids()) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot freeze " + freezer, e);
        } finally {
            try {
                CgroupFiles.write(state, "THAWED");
            } catch (IOException e) {
                // the loop below still kills, without the freeze
            }
        }
        return CgroupFiles.killUntilEmpty(this::pids);
    }

    @Override
    public void close() {
        killAll();
        for (Path d : dirs) {
            CgroupFiles.removeDir(d);
        }
    }

    @Override
    public String toString() {
        return "cgroup v1 " + memory.getFileName();
    }
}
