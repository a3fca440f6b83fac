package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.MemoryWatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A run group on the unified cgroup v2 hierarchy: one directory under a delegated parent whose
 * subtree_control hands it the memory and pids controllers. CPU time comes from cpu.stat, which v2 keeps
 * for every group even without the cpu controller.
 */
final class CgroupV2Group implements ChildGroup {

    private final Path dir;
    /** The highest memory.current seen, for kernels without memory.peak (before 5.19). */
    private long seenPeak;

    private CgroupV2Group(Path dir) {
        this.dir = dir;
    }

    static CgroupV2Group create(Path dir, long memoryBytes, int maxProcesses) throws IOException {
        Files.createDirectory(dir);
        try {
            CgroupFiles.write(dir.resolve("memory.max"), Long.toString(memoryBytes));
            Path swap = dir.resolve("memory.swap.max");
            if (Files.exists(swap)) {
                CgroupFiles.write(swap, "0");
            }
            // one OOM kill ends the whole run at once, as a memory limit should, instead of leaving a
            // parent to wait for a child that is gone
            Path oomGroup = dir.resolve("memory.oom.group");
            if (Files.exists(oomGroup)) {
                CgroupFiles.write(oomGroup, "1");
            }
            CgroupFiles.write(dir.resolve("pids.max"), Integer.toString(maxProcesses));
            return new CgroupV2Group(dir);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(dir);
            throw e;
        }
    }

    @Override
    public void limit(long memoryBytes, int maxProcesses) throws IOException {
        CgroupFiles.write(dir.resolve("memory.max"), Long.toString(memoryBytes));
        CgroupFiles.write(dir.resolve("pids.max"), Integer.toString(maxProcesses));
    }

    /**
     * Resets only the peak this object tracks where there is no memory.peak. Where there is one, the
     * kernel (6.12+) resets it per open file, which a read through a fresh open does not see: the warm
     * bootstrap's few MB then stay in the reported peak.
     */
    @Override
    public synchronized void resetPeak() {
        seenPeak = 0;
    }

    @Override
    public List<Path> procsFiles() {
        return List.of(dir.resolve("cgroup.procs"));
    }

    @Override
    public long cpuNanos() {
        return CgroupFiles.keyed(dir.resolve("cpu.stat"), "usage_usec")
                .orElseThrow(() -> new IllegalStateException("no usage_usec in " + dir.resolve("cpu.stat"))) * 1000;
    }

    @Override
    public synchronized long peakMemoryBytes() {
        Path peak = dir.resolve("memory.peak");
        if (Files.exists(peak)) {
            return CgroupFiles.readLong(peak);
        }
        seenPeak = Math.max(seenPeak, CgroupFiles.readLong(dir.resolve("memory.current")));
        return seenPeak;
    }

    @Override
    public Optional<MemoryWatch.Reading> memory() {
        return MemoryWatch.read(dir);
    }

    @Override
    public long memoryUsage() {
        return CgroupFiles.readLong(dir.resolve("memory.current"));
    }

    /** Read as asked: a run asks once (v2's limit hits are the kernel's own count, not a comparison at each poll). */
    @Override
    public long memoryLimit() {
        return CgroupFiles.readLong(dir.resolve("memory.max"));
    }

    @Override
    public boolean outOfMemory() {
        return CgroupFiles.keyed(dir.resolve("memory.events"), "oom").orElse(0) > 0;
    }

    @Override
    public long memoryLimitHits() {
        return CgroupFiles.keyed(dir.resolve("memory.events"), "max").orElse(0);
    }

    @Override
    public boolean oomKilled() {
        return CgroupFiles.keyed(dir.resolve("memory.events"), "oom_kill").orElse(0) > 0;
    }

    @Override
    public List<Long> pids() {
        return CgroupFiles.pids(procsFiles());
    }

    @Override
    public boolean killAll() {
        if (pids().isEmpty()) {
            return true;
        }
        Path kill = dir.resolve("cgroup.kill");
        if (Files.exists(kill)) {
            // 5.14+: the kernel kills every process of the group in one step, forks in flight included
            try {
                CgroupFiles.write(kill, "1");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + kill, e);
            }
        } else {
            Path freeze = dir.resolve("cgroup.freeze");
            try {
                CgroupFiles.write(freeze, "1");
                for (long pid : pids()) {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                CgroupFiles.write(freeze, "0");
            } catch (IOException e) {
                // no freezer: the loop below kills without it
            }
        }
        return CgroupFiles.killUntilEmpty(this::pids);
    }

    @Override
    public void close() {
        killAll();
        CgroupFiles.removeDir(dir);
    }

    @Override
    public String toString() {
        return "cgroup v2 " + dir;
    }
}
