package dev.codeagent.sandbox.docker;

import dev.codeagent.kit.sandbox.MemoryWatch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The memory of one container's whole control group, read from the host's cgroupfs where the program cannot write,
 * watched for the run's memory used up ({@link MemoryWatch}): under runc the program and its supervisor, under gVisor
 * the user-space kernel holding the program's memory. Absent when the group's files are not local (a remote engine,
 * a JVM in a container of its own): the run then ends at the kernel's OOM kill, as the engine reports it.
 */
final class GroupMemory {

    private final Path dir;
    private final MemoryWatch watch;
    private final long base;
    private final long requested;
    private final long groupLimit;

    private GroupMemory(Path dir, MemoryWatch watch, long base, long requested, long groupLimit) {
        this.dir = dir;
        this.watch = watch;
        this.base = base;
        this.requested = requested;
        this.groupLimit = groupLimit;
    }

    /**
     * The watch over container {@code id}'s group, for a run limited to {@code requested} bytes; what the group holds
     * now (the idle supervisor, under gVisor its kernel too) is not the program's. Empty when the group is not found.
     */
    static Optional<GroupMemory> of(String id, long requested, Path cgroupRoot) {
        for (Path dir : candidates(id, cgroupRoot)) {
            Optional<MemoryWatch.Reading> now = MemoryWatch.read(dir);
            if (now.isPresent()) {
                long base = now.get().unreclaimable();
                return Optional.of(new GroupMemory(dir, new MemoryWatch(requested, base, now.get().limit()), base, requested,
                        now.get().limit()));
            }
        }
        return Optional.empty();
    }

    static Optional<GroupMemory> of(String id, long requested) {
        return of(id, requested, Path.of("/sys/fs/cgroup"));
    }

    /** The engines' usual places for a container's group (cgroupfs and systemd drivers, v1 and v2), as for {@link GroupCpu}. */
    static List<Path> candidates(String id, Path root) {
        return List.of(root.resolve("memory").resolve("docker").resolve(id),
                root.resolve("memory").resolve("system.slice").resolve("docker-" + id + ".scope"),
                root.resolve("system.slice").resolve("docker-" + id + ".scope"),
                root.resolve("docker").resolve(id))
                .stream().filter(Files::isDirectory).toList();
    }

    /** What the group held that was not the run's when it started (its unreclaimable bytes then). */
    long base() {
        return base;
    }

    /** The group's unreclaimable bytes now; empty when the group cannot be read. */
    OptionalLong unreclaimable() {
        return MemoryWatch.read(dir).map(r -> OptionalLong.of(r.unreclaimable())).orElse(OptionalLong.empty());
    }

    /** The memory a run starting with the group holding {@code base} would get ({@link MemoryWatch#room}). */
    long roomAt(long base) {
        return MemoryWatch.room(requested, base, groupLimit);
    }

    /** Whether the run's memory is used up now; false when the group cannot be read (it is gone). */
    boolean usedUp() {
        return MemoryWatch.read(dir).map(watch::exhausted).orElse(false);
    }

    @Override
    public String toString() {
        return dir + " (used up at " + watch.threshold() + " bytes)";
    }
}
