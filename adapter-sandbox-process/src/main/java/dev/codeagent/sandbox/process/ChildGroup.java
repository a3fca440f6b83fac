package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.MemoryWatch;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The control group of one run: every process of the run, every page it charges (anonymous memory,
 * page cache, shm, memfd and tmpfs pages) and every nanosecond of CPU it uses, counted together and read
 * by the supervisor from files the program cannot reach. Made by {@link ChildGroups}; closing it kills
 * whatever is left in it and removes it.
 */
sealed interface ChildGroup extends AutoCloseable permits CgroupV1Group, CgroupV2Group {

    /** The files a launcher writes its pid into to join the group (see {@link LaunchWrapper}). */
    List<Path> procsFiles();

    /** CPU time used by every process that has been in the group, user and system, in nanoseconds. */
    long cpuNanos();

    /** The most memory the group has held at once, in bytes (a lower bound where the kernel keeps no peak). */
    long peakMemoryBytes();

    /** The group's memory as the kernel counts it now (usage, limit, file cache, refaults); empty when unreadable. */
    Optional<MemoryWatch.Reading> memory();

    /** The group's whole memory charge now, in bytes: one file, read at every poll of a run (see {@link MemoryWatch#plainlyUnder}). */
    long memoryUsage();

    /** The group's hard memory limit, in bytes, as the kernel holds it (page-rounded). */
    long memoryLimit();

    /** Whether the kernel's OOM killer has killed a process of the group because the group hit its limit. */
    boolean oomKilled();

    /**
     * How many times the group's memory reached its limit and the kernel had to reclaim (or fail) to stay under it:
     * a count that keeps rising means the run is held at its limit ({@code memory.failcnt} on v1, the {@code max}
     * event on v2).
     */
    long memoryLimitHits();

    /**
     * Whether the group has been out of memory: on v1 its tasks are waiting on the OOM killer now
     * ({@code under_oom}), on v2 an OOM happened ({@code oom} event), kill or no kill.
     */
    boolean outOfMemory();

    /**
     * Sets the group's limits anew: a warm sandbox joins its group when it is pre-started, before the job
     * and its limits are known. Lowering memory below what the group holds makes the kernel reclaim, and
     * fails if it cannot.
     */
    void limit(long memoryBytes, int maxProcesses) throws java.io.IOException;

    /**
     * Starts the peak over from what the group holds now, so a warm sandbox's bootstrap is not counted as
     * the program's peak (where the kernel lets a peak be reset: v1; on v2 only a peak this object tracks).
     */
    void resetPeak();

    /** The pids now in the group. */
    List<Long> pids();

    /**
     * Kills every process in the group and waits until the group is empty.
     *
     * @return whether the group is empty (false only if processes survived the timeout)
     */
    boolean killAll();

    /** Kills what is left and removes the group; the figures cannot be read afterwards. */
    @Override
    void close();
}
