package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Makes a {@link RunGroup} per run under one parent group of the sandbox's own, on whichever cgroup
 * version the host runs: v1 when the memory controller is mounted as a v1 hierarchy (then the parent is
 * {@code <hierarchy>/<name>} in each of memory, pids, cpuacct and freezer, as isolate did on v1), else v2,
 * where the parent must be a delegated subtree: the JVM's own group (or one named explicitly) must offer
 * the memory and pids controllers and be free to hand them down, i.e. hold no processes itself (systemd:
 * {@code Delegate=yes} and the service in a leaf below it).
 *
 * <p>Groups are named {@code run-<jvm pid>-<n>}, so another sandbox process sharing the parent is left
 * alone and the groups of a dead one are recognised as stale and removed at start.
 */
final class RunGroups {

    /** The cgroup versions the host can run. */
    enum Version {
        V1, V2
    }

    /** Control groups cannot be had here; the message says why in one line, for {@code isolation}. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message);
        }
    }

    static final String DEFAULT_PARENT = "codeagent";
    private static final List<String> V1_REQUIRED = List.of("memory", "pids", "cpuacct");
    private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");
    private static final Path SELF_CGROUP = Path.of("/proc/self/cgroup");

    private final Version version;
    /** v1: controller -> the parent's directory in that controller's hierarchy; v2: "" -> the parent. */
    private final Map<String, Path> parents;
    private final long owner = ProcessHandle.current().pid();
    /**
     * One counter per JVM, not per instance: several sandboxes in one JVM share the parent, so their group names
     * must not collide, and one's stale-group sweep must not take another's live groups for an earlier
     * process's (a number is taken before its directory exists, so every live group's number is at most this).
     */
    private static final AtomicLong NEXT = new AtomicLong();

    private RunGroups(Version version, Map<String, Path> parents) {
        this.version = version;
        this.parents = Map.copyOf(parents);
    }

    /** Run groups under {@code name} on this host, with stale groups of dead sandbox processes removed. */
    static RunGroups open(String name) throws Unavailable {
        return open(name, null);
    }

    /**
     * @param delegatedV2 on a v2 host, the delegated group to make the parent in (null: the JVM's own group)
     */
    static RunGroups open(String name, Path delegatedV2) throws Unavailable {
        if (!name.matches("[A-Za-z0-9_.-]+") || name.startsWith(".")) {
            throw new IllegalArgumentException("control group name must be a plain directory name: " + name);
        }
        Map<String, Path> v1 = new HashMap<>();
        Path v2 = null;
        for (String line : lines(MOUNTINFO)) {
            // id parent dev root mountpoint options [optional...] - fstype source superoptions
            String[] f = line.split(" ");
            int dash = Arrays.asList(f).indexOf("-");
            if (dash < 0 || dash + 3 >= f.length) {
                continue;
            }
            String type = f[dash + 1];
            Path mount = Path.of(f[4]);
            if (type.equals("cgroup")) {
                for (String option : f[dash + 3].split(",")) {
                    v1.putIfAbsent(option, mount);
                }
            } else if (type.equals("cgroup2") && v2 == null) {
                v2 = mount;
            }
        }
        RunGroups groups;
        if (v1.containsKey("memory")) {
            groups = openV1(name, v1);
        } else if (v2 != null) {
            groups = openV2(name, delegatedV2 != null ? delegatedV2 : ownV2Group(v2));
        } else {
            throw new Unavailable("no cgroup filesystem is mounted (looked in " + MOUNTINFO + ")");
        }
        groups.removeStale();
        return groups;
    }

    private static RunGroups openV1(String name, Map<String, Path> mounts) throws Unavailable {
        Map<String, Path> parents = new HashMap<>();
        for (String c : V1_REQUIRED) {
            if (!mounts.containsKey(c)) {
                throw new Unavailable("cgroup v1: the " + c + " controller is not mounted");
            }
            parents.put(c, mounts.get(c).resolve(name));
        }
        if (mounts.containsKey("freezer")) {
            parents.put("freezer", mounts.get("freezer").resolve(name));
        }
        for (Path p : parents.values()) {
            makeParent(p);
        }
        return new RunGroups(Version.V1, parents);
    }

    static RunGroups openV2(String name, Path delegated) throws Unavailable {
        Set<String> offered = Set.of(read(delegated.resolve("cgroup.controllers")).split(" "));
        for (String c : List.of("memory", "pids")) {
            if (!offered.contains(c)) {
                throw new Unavailable("cgroup v2: " + delegated + " offers no " + c + " controller (offered: "
                        + String.join(" ", offered) + "); it is not delegated, or a v1 hierarchy holds it");
            }
        }
        try {
            enable(delegated);
        } catch (IOException e) {
            throw new Unavailable("cgroup v2: cannot hand memory and pids down from " + delegated + " ("
                    + e.getMessage() + "); a group that holds processes cannot have child groups with controllers:"
                    + " run codeagent in a leaf below a delegated group (systemd Delegate=yes) and name that group");
        }
        Path parent = delegated.resolve(name);
        makeParent(parent);
        try {
            enable(parent);
        } catch (IOException e) {
            throw new Unavailable("cgroup v2: cannot enable memory and pids in " + parent + " (" + e.getMessage() + ")");
        }
        return new RunGroups(Version.V2, Map.of("", parent));
    }

    private static void enable(Path group) throws IOException {
        Set<String> on = Set.of(CgroupFiles.read(group.resolve("cgroup.subtree_control")).split(" "));
        if (!on.contains("memory") || !on.contains("pids")) {
            CgroupFiles.write(group.resolve("cgroup.subtree_control"), "+memory +pids");
        }
    }

    /** The JVM's own group on the v2 hierarchy, from the "0::/path" line of /proc/self/cgroup. */
    private static Path ownV2Group(Path mount) throws Unavailable {
        for (String line : lines(SELF_CGROUP)) {
            if (line.startsWith("0::")) {
                return mount.resolve(line.substring(3).replaceFirst("^/", ""));
            }
        }
        throw new Unavailable("cgroup v2: " + SELF_CGROUP + " names no v2 group for this process");
    }

    private static void makeParent(Path p) throws Unavailable {
        try {
            Files.createDirectories(p);
        } catch (AccessDeniedException e) {
            throw new Unavailable("cannot create control group " + p + ": permission denied (run as root, or"
                    + " delegate a cgroup v2 subtree to this user)");
        } catch (IOException e) {
            throw new Unavailable("cannot create control group " + p + ": " + e.getMessage());
        }
        if (!Files.isWritable(p)) {
            throw new Unavailable("control group " + p + " is not writable by this process");
        }
    }

    Version version() {
        return version;
    }

    /** The parent's directories (one per v1 hierarchy, one on v2). */
    List<Path> parents() {
        return new ArrayList<>(parents.values());
    }

    /**
     * A new group with its limits set, to be joined by the launcher before the program starts.
     *
     * @param memoryBytes memory for every process and page of the run together; swap is off
     * @param maxProcesses processes and threads of the run together
     */
    RunGroup create(long memoryBytes, int maxProcesses) throws IOException {
        String leaf = "run-" + owner + "-" + NEXT.incrementAndGet();
        if (version == Version.V2) {
            return CgroupV2Group.create(parents.get("").resolve(leaf), memoryBytes, maxProcesses);
        }
        Path freezer = parents.get("freezer");
        return CgroupV1Group.create(parents.get("memory").resolve(leaf), parents.get("pids").resolve(leaf),
                parents.get("cpuacct").resolve(leaf), freezer == null ? null : freezer.resolve(leaf),
                memoryBytes, maxProcesses);
    }

    /**
     * Kills and removes the groups left by sandbox processes that are gone (a crash, a kill -9).
     *
     * @return how many groups were removed
     */
    int removeStale() {
        int removed = 0;
        for (Path parent : parents.values()) {
            for (Path g : children(parent)) {
                String[] parts = g.getFileName().toString().split("-");
                if (parts.length != 3 || !parts[0].equals("run") || !parts[1].matches("\\d+")) {
                    continue;
                }
                long pid = Long.parseLong(parts[1]);
                if (pid != owner && ProcessHandle.of(pid).isPresent()) {
                    continue;
                }
                if (pid == owner) {
                    // our own pid on a group we did not make: left by an earlier process that had this pid
                    long n = Long.parseLong(parts[2]);
                    if (n <= NEXT.get()) {
                        continue;
                    }
                }
                CgroupFiles.killUntilEmpty(() -> CgroupFiles.pids(List.of(g.resolve("cgroup.procs"))));
                CgroupFiles.removeDir(g);
                removed++;
            }
        }
        return removed;
    }

    private static List<Path> children(Path parent) {
        try (Stream<Path> s = Files.list(parent)) {
            return s.filter(Files::isDirectory).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + parent, e);
        }
    }

    private static List<String> lines(Path file) throws Unavailable {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Unavailable("cannot read " + file + ": " + e.getMessage());
        }
    }

    private static String read(Path file) throws Unavailable {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new Unavailable("cannot read " + file + ": " + e.getMessage());
        }
    }
}
