package dev.codeagent.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a sandbox's control group first stood at its memory limit, seen from the host: a daemon thread reads every
 * group under the sandboxes' parents (the process tier's {@code codeagent}, the engine's {@code docker} or
 * {@code system.slice/docker-*.scope}, cgroup v1 or v2) every {@link #POLL_MILLIS} ms, of the sandbox being measured
 * only ({@link #only}: other sandboxes on the host, a test suite's, share the parents). A group is at its limit when
 * less than 1/64 of it (at least 2 MiB: the kernel charges in batches) is left. Only one run at a time is measured, and
 * idle pooled groups are nowhere near their limits, so the first group at its limit since {@link #arm()} is the run's.
 * Extra parents: {@code MEMORY_VERDICT_GROUPS} (colon-separated directories).
 */
final class GroupBreaches {

    static final long POLL_MILLIS = 3;

    private final List<Path> parents = new ArrayList<>();
    private final AtomicLong first = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong released = new AtomicLong(Long.MAX_VALUE);
    /** Groups of the run that went past 3/4 of their limit and have not yet been emptied. */
    private final Map<Path, Boolean> loaded = new ConcurrentHashMap<>();
    private volatile Predicate<Path> ours = g -> false;
    private final Map<Path, Boolean> seen = new ConcurrentHashMap<>();

    GroupBreaches() {
        Path fs = Path.of("/sys/fs/cgroup");
        for (String p : new String[] {"memory/codeagent", "memory/docker", "memory/system.slice", "docker", "system.slice"}) {
            parents.add(fs.resolve(p));
        }
        try {
            // the process tier's v2 parent is made under this JVM's own group
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (line.startsWith("0::/") && Files.exists(fs.resolve("cgroup.controllers"))) {
                    parents.add(fs.resolve(line.substring(4)).resolve("codeagent"));
                }
            }
        } catch (IOException e) {
            // no v2 group of our own to look under
        }
        String extra = System.getenv("MEMORY_VERDICT_GROUPS");
        if (extra != null) {
            for (String p : extra.split(":")) {
                parents.add(Path.of(p));
            }
        }
        Thread t = new Thread(this::watch, "group-breaches");
        t.setDaemon(true);
        t.start();
    }

    /**
     * Watches only the groups of the sandbox about to be measured: the process tier's are named
     * {@code run-<ns>-<this JVM's pid>-<n>}; a container's are those whose engine config names {@code dockerOwner}
     * (its owner label).
     */
    void only(String dockerOwner) {
        seen.clear();
        String pid = "-" + ProcessHandle.current().pid() + "-";
        ours = dockerOwner == null ? g -> g.getFileName().toString().contains(pid) : g -> {
            String id = g.getFileName().toString().replaceFirst("^docker-", "").replaceFirst("\\.scope$", "");
            try {
                return Files.readString(Path.of("/var/lib/docker/containers", id, "config.v2.json")).contains(dockerOwner);
            } catch (IOException | RuntimeException e) {
                return false;
            }
        };
    }

    /** Forgets the last run's breach. */
    void arm() {
        loaded.clear();
        first.set(Long.MAX_VALUE);
        released.set(Long.MAX_VALUE);
    }

    /**
     * Epoch ms when a group that had gone past 3/4 of its limit since {@link #arm()} was emptied (its usage under half
     * the limit, or the group gone): the kill, seen from outside; or {@code Long.MAX_VALUE}.
     */
    long released() {
        return released.get();
    }

    /** Epoch ms when a group first stood at its limit since {@link #arm()}, or {@code Long.MAX_VALUE}. */
    long first() {
        return first.get();
    }

    private void watch() {
        while (true) {
            for (Path parent : parents) {
                if (!Files.isDirectory(parent)) {
                    continue;
                }
                try (DirectoryStream<Path> groups = Files.newDirectoryStream(parent, Files::isDirectory)) {
                    for (Path g : groups) {
                        if (!seen.computeIfAbsent(g, ours::test)) {
                            continue;
                        }
                        long[] m = usageAndLimit(g);
                        if (m == null || m[1] >= (1L << 40)) {
                            continue;
                        }
                        if (m[0] > 0 && m[1] - m[0] <= Math.max(2L << 20, m[1] / 64)) {
                            first.compareAndSet(Long.MAX_VALUE, System.currentTimeMillis());
                        }
                        if (m[0] > m[1] / 4 * 3) {
                            loaded.put(g, true);
                        } else if (m[0] < m[1] / 2 && loaded.remove(g) != null) {
                            released.compareAndSet(Long.MAX_VALUE, System.currentTimeMillis());
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // a group removed while listed
                }
            }
            for (Path g : loaded.keySet()) {
                if (!Files.isDirectory(g) && loaded.remove(g) != null) {
                    released.compareAndSet(Long.MAX_VALUE, System.currentTimeMillis());
                }
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Usage and limit of a memory group, or null. */
    private static long[] usageAndLimit(Path g) {
        long usage;
        long limit;
        if (Files.exists(g.resolve("memory.usage_in_bytes"))) {
            usage = read(g.resolve("memory.usage_in_bytes"));
            limit = read(g.resolve("memory.limit_in_bytes"));
        } else if (Files.exists(g.resolve("memory.current"))) {
            usage = read(g.resolve("memory.current"));
            limit = read(g.resolve("memory.max"));
        } else {
            return null;
        }
        return usage < 0 || limit < 0 ? null : new long[] {usage, limit};
    }

    private static long read(Path f) {
        try {
            String s = Files.readString(f).trim();
            return s.equals("max") ? Long.MAX_VALUE : Long.parseLong(s);
        } catch (IOException e) {
            return -1;
        }
    }
}
