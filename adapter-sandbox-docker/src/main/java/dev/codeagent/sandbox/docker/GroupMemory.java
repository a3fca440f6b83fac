package dev.codeagent.sandbox.docker;

import dev.codeagent.kit.sandbox.MemoryWatch;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The memory of one container's whole control group, read from the host's cgroupfs where the program cannot write,
 * watched for the run's memory used up ({@link MemoryWatch}): under runc the program and its supervisor, under gVisor
 * the user-space kernel holding the program's memory. Absent when the group's files are not local (a remote engine,
 * a JVM in a container of its own): the run then ends at the kernel's OOM kill, as the engine reports it.
 */
final class GroupMemory {

    private final Path dir;
    private final MemoryWatch watch;

    private GroupMemory(Path dir, MemoryWatch watch) {
        this.dir = dir;
        this.watch = watch;
    }

    /**
     * The watch over container {@code id}'s group, for a run limited to {@code requested} bytes; what the group holds
     * now (the idle supervisor, under gVisor its kernel too) is not the program's. Empty when the group is not found.
     */
    static Optional<GroupMemory> of(String id, long requested, Path cgroupRoot) {
        for (Path dir : candidates(id, cgroupRoot)) {
            Optional<MemoryWatch.Reading> now = MemoryWatch.read(dir);
            if (now.isPresent()) {
                return Optional.of(new GroupMemory(dir, new MemoryWatch(requested, now.get().unreclaimable(), now.get().limit())));
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

    /** Whether the run's memory is used up now; false when the group cannot be read (it is gone). */
    boolean usedUp() {
        return MemoryWatch.read(dir).map(watch::exhausted).orElse(false);
    }

    @Override
    public String toString() {
        return dir + " (used up at " + watch.threshold() + " bytes)";
    }
}
