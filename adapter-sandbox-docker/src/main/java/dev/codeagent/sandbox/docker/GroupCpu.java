package dev.codeagent.sandbox.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * The CPU time of one container's whole control group — every process in it, however it was forked,
 * and under gVisor the user-space kernel working on the program's behalf — read from where the program
 * cannot write: the host's cgroupfs ({@code cpuacct.usage} on cgroup v1, {@code usage_usec} of
 * {@code cpu.stat} on v2), else the engine's stats API when the cgroupfs is not local (a remote engine,
 * or a JVM in a container of its own).
 *
 * <p>The per-process {@code RLIMIT_CPU} inside the container stays, but cannot hold a run that keeps
 * forking: every child starts with a fresh count. This figure can.
 */
final class GroupCpu {

    /** How often a cgroupfs figure is read while a program runs: a file read, microseconds. */
    static final Duration FILE_POLL = Duration.ofMillis(50);
    /** How often the engine is asked instead: each answer takes the engine a sampling interval. */
    static final Duration ENGINE_POLL = Duration.ofSeconds(1);

    private final LongSupplier nanos;
    private final Duration poll;
    private final String source;
    private final boolean exact;

    private GroupCpu(LongSupplier nanos, Duration poll, String source, boolean exact) {
        this.nanos = nanos;
        this.poll = poll;
        this.source = source;
        this.exact = exact;
    }

    /**
     * The meter of container {@code id}: its cgroup file under {@code cgroupRoot} when one of the engine's
     * usual layouts has it there, else the file named by the container's init in {@code /proc}, else the engine.
     */
    static GroupCpu of(String id, Path cgroupRoot, Path procRoot, DockerEngine engine) {
        Optional<Path> file = candidates(id, cgroupRoot).stream().filter(Files::isReadable).findFirst();
        if (file.isEmpty()) {
            file = fromProc(id, cgroupRoot, procRoot, engine);
        }
        if (file.isPresent()) {
            Path f = file.get();
            return new GroupCpu(() -> read(f), FILE_POLL, f.toString(), true);
        }
        return new GroupCpu(() -> engine.cpuUsageNanos(id), ENGINE_POLL, "the engine's stats", false);
    }

    static GroupCpu of(String id, DockerEngine engine) {
        return of(id, Path.of("/sys/fs/cgroup"), Path.of("/proc"), engine);
    }

    /** A meter over any reading (tests). */
    static GroupCpu of(LongSupplier nanos, Duration poll) {
        return new GroupCpu(nanos, poll, "a supplier", false);
    }

    /**
     * Where the engines put a container's group: cgroupfs driver (parent {@code docker}) and systemd driver
     * ({@code system.slice/docker-<id>.scope}), v1 with cpuacct mounted alone or with cpu, and v2.
     */
    static List<Path> candidates(String id, Path root) {
        List<Path> paths = new ArrayList<>();
        for (String v1 : new String[] {"cpuacct", "cpu,cpuacct", "cpuacct,cpu"}) {
            paths.add(root.resolve(v1).resolve("docker").resolve(id).resolve("cpuacct.usage"));
            paths.add(root.resolve(v1).resolve("system.slice").resolve("docker-" + id + ".scope").resolve("cpuacct.usage"));
        }
        paths.add(root.resolve("system.slice").resolve("docker-" + id + ".scope").resolve("cpu.stat"));
        paths.add(root.resolve("docker").resolve(id).resolve("cpu.stat"));
        return paths;
    }

    /** The group of the container's init, as the host's /proc names it (a custom cgroup parent lands here). */
    private static Optional<Path> fromProc(String id, Path cgroupRoot, Path procRoot, DockerEngine engine) {
        Integer pid;
        try {
            pid = engine.inspect(id).getState().getPid();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        if (pid == null || pid <= 0) {
            return Optional.empty();
        }
        try {
            return groupFile(Files.readAllLines(procRoot.resolve(Integer.toString(pid)).resolve("cgroup")), cgroupRoot)
                    .filter(Files::isReadable);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The usage file of a {@code /proc/<pid>/cgroup} listing: the cpuacct line on v1, the {@code 0::} line on v2. */
    static Optional<Path> groupFile(List<String> procCgroup, Path cgroupRoot) {
        for (String line : procCgroup) {
            String[] parts = line.split(":", 3);
            if (parts.length == 3 && List.of(parts[1].split(",")).contains("cpuacct")) {
                return Optional.of(cgroupRoot.resolve(parts[1]).resolve(relative(parts[2])).resolve("cpuacct.usage"));
            }
        }
        for (String line : procCgroup) {
            if (line.startsWith("0::")) {
                return Optional.of(cgroupRoot.resolve(relative(line.substring(3))).resolve("cpu.stat"));
            }
        }
        return Optional.empty();
    }

    private static String relative(String path) {
        return path.startsWith("/") ? path.substring(1) : path;
    }

    /** Nanoseconds in a {@code cpuacct.usage} or {@code cpu.stat} file. */
    static long read(Path file) {
        try {
            String text = Files.readString(file);
            if (file.getFileName().toString().equals("cpu.stat")) {
                for (String line : text.split("\n")) {
                    if (line.startsWith("usage_usec ")) {
                        return Long.parseLong(line.substring(11).trim()) * 1000;
                    }
                }
                throw new IllegalStateException("no usage_usec in " + file);
            }
            return Long.parseLong(text.trim());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The group's CPU time so far, in nanoseconds; -1 when it cannot be read (the container is gone). */
    long nanos() {
        try {
            return nanos.getAsLong();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** How often it is worth reading. */
    Duration poll() {
        return poll;
    }

    /** Whether it reads the group's own counter in the cgroupfs: exact to the nanosecond and cheap to read often. */
    boolean exact() {
        return exact;
    }

    @Override
    public String toString() {
        return source;
    }
}
