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
 * Makes a {@link ChildGroup} per run under one parent group of the sandbox's own, on whichever cgroup
 * version the host runs: v1 when the memory controller is mounted as a v1 hierarchy (then the parent is
 * {@code <hierarchy>/<name>} in each of memory, pids, cpuacct and freezer, as isolate did on v1), else v2,
 * where the parent must be a delegated subtree: the JVM's own group (or one named explicitly) must offer
 * the memory and pids controllers and be free to hand them down, i.e. hold no processes itself (systemd:
 * {@code Delegate=yes} and the service in a leaf below it).
 *
 * <p>Groups are named {@code run-<pid namespace>-<jvm pid>-<n>}: a pid means something only in its own pid
 * namespace, and sandbox processes in several namespaces (containers, {@code unshare -p}) share one hierarchy.
 * A group of this namespace whose JVM is gone is stale: its processes are killed and it is removed at start. A
 * group of another namespace (or named as before namespaces counted) is never killed from here, since its pid
 * cannot be checked: it is removed only once it is empty and has been for a while. A group that cannot be removed
 * is left, and never stops this sandbox from making its own: once, one that could not be removed (a live run of a
 * JVM in another pid namespace, whose processes this namespace cannot see) made the whole tier run without
 * control groups.
 */
final class ChildGroups {

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
    /** This JVM's pid namespace, which gives {@link #owner} its meaning. */
    private final String namespace = pidNamespace();
    /** A foreign group younger than this may be one its JVM made and is about to join: left alone. */
    static final java.time.Duration FOREIGN_GRACE = java.time.Duration.ofMinutes(2);
    private static final Path PID_NAMESPACE = Path.of("/proc/self/ns/pid");
    /**
     * One counter per JVM, not per instance: several sandboxes in one JVM share the parent, so their group names
     * must not collide, and one's stale-group sweep must not take another's live groups for an earlier
     * process's (a number is taken before its directory exists, so every live group's number is at most this).
     */
    private static final AtomicLong NEXT = new AtomicLong();

    private ChildGroups(Version version, Map<String, Path> parents) {
        this.version = version;
        this.parents = Map.copyOf(parents);
    }

    /** Child groups under {@code name} on this host, with stale groups of dead sandbox processes removed. */
    static ChildGroups open(String name) throws Unavailable {
        return open(name, null);
    }

    /**
     * @param delegatedV2 on a v2 host, the delegated group to make the parent in (null: the JVM's own group)
     */
    static ChildGroups open(String name, Path delegatedV2) throws Unavailable {
        if (!name.matches("[A-Za-z0-9_.-]+") || name.startsWith(".")) {
            throw new IllegalArgumentException("control group name must be a plain directory name: " + name);
        }
        Map<String, Path> v1 = new HashMap<>();
        Path v2 = null;
        String v2Root = "/";
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
                v2Root = f[3];
            }
        }
        ChildGroups groups;
        if (v1.containsKey("memory")) {
            groups = openV1(name, v1);
        } else if (v2 != null) {
            groups = openV2(name, delegatedV2 != null ? delegatedV2 : ownV2Group(v2, v2Root, lines(SELF_CGROUP)));
        } else {
            throw new Unavailable("no cgroup filesystem is mounted (looked in " + MOUNTINFO + ")");
        }
        groups.removeStale();
        return groups;
    }

    private static ChildGroups openV1(String name, Map<String, Path> mounts) throws Unavailable {
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
        return new ChildGroups(Version.V1, parents);
    }

    static ChildGroups openV2(String name, Path delegated) throws Unavailable {
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
        Path swaps = Path.of("/proc/swaps");
        // (a kernel without swap support has no /proc/swaps)
        String swap = swapUnbounded(parent, Files.exists(swaps) ? lines(swaps) : List.of());
        if (swap != null) {
            throw new Unavailable(swap);
        }
        return new ChildGroups(Version.V2, Map.of("", parent));
    }

    /**
     * Why a v2 run group's memory limit would not hold, or null: swap is on and the kernel does not account it (no
     * {@code memory.swap.max} in a group with the memory controller: {@code swapaccount=0}, or a kernel built without
     * it), so a run could hold more than its limit by being swapped out, and v2 has no per-group swappiness to fall
     * back on as v1 does.
     *
     * @param group a group whose parent hands it the memory controller
     * @param procSwaps the lines of /proc/swaps (a header, then one line per active swap area)
     */
    static String swapUnbounded(Path group, List<String> procSwaps) {
        boolean swapOn = procSwaps.stream().skip(1).anyMatch(line -> !line.isBlank());
        if (!swapOn || Files.exists(group.resolve("memory.swap.max"))) {
            return null;
        }
        return "cgroup v2: swap is on and the kernel does not account it (no memory.swap.max in " + group + "), so a run"
                + " could exceed its memory limit by swapping; turn swap off (swapoff -a) or boot with swapaccount=1";
    }

    private static void enable(Path group) throws IOException {
        Set<String> on = Set.of(CgroupFiles.read(group.resolve("cgroup.subtree_control")).split(" "));
        if (!on.contains("memory") || !on.contains("pids")) {
            CgroupFiles.write(group.resolve("cgroup.subtree_control"), "+memory +pids");
        }
    }

    /**
     * The JVM's own group on the v2 hierarchy, from the "0::/path" line of /proc/self/cgroup. That path is from the
     * root of the hierarchy as this process's cgroup namespace sees it, and the mount may show only a subtree of it
     * ({@code root}, the fourth field of mountinfo): a container without a cgroup namespace sees
     * {@code 0::/docker/<id>} with that very group mounted at /sys/fs/cgroup, so the group is the mount itself.
     *
     * @param mount where the v2 hierarchy is mounted
     * @param root the group of the hierarchy that is mounted there ("/" for the whole of it)
     * @param selfCgroup the lines of /proc/self/cgroup
     */
    static Path ownV2Group(Path mount, String root, List<String> selfCgroup) throws Unavailable {
        for (String line : selfCgroup) {
            if (line.startsWith("0::")) {
                String own = line.substring(3);
                String base = root.endsWith("/") ? root : root + "/";
                if (own.equals(root)) {
                    return mount;
                }
                if (!own.startsWith(base) || own.contains("/../") || own.endsWith("/..")) {
                    throw new Unavailable("cgroup v2: this process's group " + own + " is outside the hierarchy mounted at "
                            + mount + " (which shows " + root + "); mount the hierarchy or the group's ancestor there");
                }
                return mount.resolve(own.substring(base.length()));
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
    ChildGroup create(long memoryBytes, int maxProcesses) throws IOException {
        String leaf = leafName(namespace, owner, NEXT.incrementAndGet());
        if (version == Version.V2) {
            return CgroupV2Group.create(parents.get("").resolve(leaf), memoryBytes, maxProcesses);
        }
        Path freezer = parents.get("freezer");
        return CgroupV1Group.create(parents.get("memory").resolve(leaf), parents.get("pids").resolve(leaf),
                parents.get("cpuacct").resolve(leaf), freezer == null ? null : freezer.resolve(leaf),
                memoryBytes, maxProcesses);
    }

    /** {@code run-4026531836-812-3}: the JVM's pid namespace (its inode), its pid there, and a number of its own. */
    static String leafName(String namespace, long pid, long n) {
        return "run-" + namespace + "-" + pid + "-" + n;
    }

    /** What a group's name says of the JVM that made it. */
    enum Owner {
        /** Not a run group's name: not ours to touch. */
        NONE,
        /** This JVM's, live or about to be. */
        SELF,
        /** Another live JVM of this pid namespace. */
        ALIVE,
        /** A JVM of this pid namespace that is gone: its group is stale. */
        DEAD,
        /** A JVM of another pid namespace, or a name from before namespaces were counted: cannot be checked. */
        FOREIGN
    }

    /**
     * Whose a group named {@code leaf} is, as seen from JVM {@code self} in pid namespace {@code namespace}.
     *
     * @param alive whether a pid of this namespace names a live process
     * @param issued the highest number this JVM has given a group so far
     */
    static Owner owner(String leaf, String namespace, long self, long issued, java.util.function.LongPredicate alive) {
        String[] parts = leaf.split("-");
        if (parts.length == 3 && parts[0].equals("run") && parts[1].matches("\\d{1,18}") && parts[2].matches("\\d{1,18}")) {
            return Owner.FOREIGN;
        }
        if (parts.length != 4 || !parts[0].equals("run") || !parts[1].matches("\\d{1,18}") || !parts[2].matches("\\d{1,18}")
                || !parts[3].matches("\\d{1,18}")) {
            return Owner.NONE;
        }
        if (!parts[1].equals(namespace)) {
            return Owner.FOREIGN;
        }
        long pid = Long.parseLong(parts[2]);
        if (pid == self) {
            // our own pid on a group we did not make: left by an earlier process that had this pid
            return Long.parseLong(parts[3]) <= issued ? Owner.SELF : Owner.DEAD;
        }
        return alive.test(pid) ? Owner.ALIVE : Owner.DEAD;
    }

    /**
     * Kills and removes the groups left by sandbox processes of this pid namespace that are gone (a crash, a kill
     * -9), and removes empty groups of other namespaces that have been left for {@link #FOREIGN_GRACE}. A group
     * that will not go is left where it is (logged), never an error: it is someone else's, not this sandbox's.
     *
     * @return how many groups were removed
     */
    int removeStale() {
        int removed = 0;
        for (Path parent : parents.values()) {
            for (Path g : children(parent)) {
                Owner whose = owner(g.getFileName().toString(), namespace, owner, NEXT.get(),
                        pid -> ProcessHandle.of(pid).isPresent());
                try {
                    if (whose == Owner.DEAD) {
                        CgroupFiles.killUntilEmpty(() -> CgroupFiles.pids(List.of(g.resolve("cgroup.procs"))));
                        CgroupFiles.removeDir(g);
                        removed++;
                    } else if (whose == Owner.FOREIGN && olderThan(g, FOREIGN_GRACE)
                            && CgroupFiles.pids(List.of(g.resolve("cgroup.procs"))).isEmpty()) {
                        // rmdir itself refuses a group that still holds processes, also ones this namespace cannot see
                        Files.delete(g);
                        removed++;
                    }
                } catch (IOException | RuntimeException e) {
                    LoggerHolder.LOG.debug("process sandbox: left control group {} ({})", g, e.toString());
                }
            }
        }
        return removed;
    }

    private static boolean olderThan(Path dir, java.time.Duration age) throws IOException {
        return Files.getLastModifiedTime(dir).toInstant().isBefore(java.time.Instant.now().minus(age));
    }

    /** The inode of this process's pid namespace ({@code pid:[4026531836]}), or "0" where it cannot be read. */
    static String pidNamespace() {
        try {
            String link = Files.readSymbolicLink(PID_NAMESPACE).toString();
            String digits = link.replaceAll("[^0-9]", "");
            return digits.isEmpty() ? "0" : digits;
        } catch (IOException | UnsupportedOperationException e) {
            return "0";
        }
    }

    private static final class LoggerHolder {
        static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ChildGroups.class);
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
