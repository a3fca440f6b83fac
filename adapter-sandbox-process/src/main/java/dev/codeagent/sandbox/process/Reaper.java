package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what runs leave behind: the processes of a run's uid, its work directory and measurement file,
 * and, at start, what runs of JVMs that died left in the work root. Whether a JVM is dead is decided in one
 * way: the uid owning a leftover is claimed by no JVM ({@link UidPool#unclaimed}, a lock a live JVM holds).
 */
final class Reaper {

    private static final Logger log = LoggerFactory.getLogger(Reaper.class);

    private final UidPool uids;

    /** @param uids the pool runs take their uids from, or null when runs keep the JVM's uid */
    Reaper(UidPool uids) {
        this.uids = uids;
    }

    /** Gives a run's uid back, or retires it when processes of it survived every kill. */
    void release(long uid, boolean clean) {
        if (uid < 0) {
            return;
        }
        if (clean) {
            uids.release(uid);
        } else {
            log.error("process sandbox: processes of uid {} survived every kill; the uid is retired", uid);
            uids.retire(uid);
        }
    }

    /** Removes a run's work directory and measurement file (either may be null); a failure is logged. */
    static void remove(Path dir, Path rusage) {
        try {
            if (rusage != null) {
                Files.deleteIfExists(rusage);
            }
            if (dir != null) {
                WorkDir.delete(dir);
            }
        } catch (IOException e) {
            log.warn("process sandbox could not remove {}: {}", dir == null ? rusage : dir, e.toString());
        }
    }

    /** Kills every process of a uid; true when none is left alive (zombies are dead, their reaping is not ours). */
    static boolean sweepUid(long uid, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            List<Long> left = HostProcesses.ofUid(uid);
            if (left.isEmpty()) {
                return true;
            }
            left.forEach(HostProcesses::kill);
            if (System.nanoTime() > deadline) {
                return HostProcesses.ofUid(uid).isEmpty();
            }
            Cleanup.pause(2);
        }
    }

    /**
     * Work directories of runs whose JVM was killed before it could remove them: owned by a sandbox uid
     * that no JVM holds any more. (A JVM that exits normally, or on SIGTERM or Ctrl-C, removes its own.)
     */
    static void removeLeftovers(Path root) {
        Path locks = UidPool.hostLockDir();
        try (Stream<Path> entries = Files.list(root)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String name = p.getFileName().toString();
                if (name.startsWith("codeagent-warm-")) {
                    removeDeadWarmRoot(p, locks);
                    continue;
                }
                if (!name.matches("codeagent-run-\\d+(\\.rusage)?")) {
                    continue;
                }
                try {
                    int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                    if (UidPool.unclaimed(locks, owner)) {
                        WorkDir.delete(p);
                        log.info("process sandbox: removed {}, left behind by a run whose JVM died", p);
                    }
                } catch (IOException | RuntimeException e) {
                    log.debug("process sandbox: could not check {}: {}", p, e.toString());
                }
            }
        } catch (IOException e) {
            log.debug("process sandbox: could not look for leftovers in {}: {}", root, e.toString());
        }
    }

    /**
     * A directory of pre-started sandboxes whose JVM was killed: it holds entries, and every one belongs to
     * a uid no JVM holds. (An empty one may be a live JVM's between two pre-starts: it is left alone.)
     */
    private static void removeDeadWarmRoot(Path dir, Path locks) {
        try (Stream<Path> entries = Files.list(dir)) {
            List<Path> all = entries.collect(Collectors.toList());
            if (all.isEmpty()) {
                return;
            }
            for (Path e : all) {
                int owner = (Integer) Files.getAttribute(e, "unix:uid", LinkOption.NOFOLLOW_LINKS);
                if (!UidPool.unclaimed(locks, owner)) {
                    return;
                }
            }
            WorkDir.delete(dir);
            log.info("process sandbox: removed {}, left behind by a JVM that died", dir);
        } catch (IOException | RuntimeException e) {
            log.debug("process sandbox: could not check {}: {}", dir, e.toString());
        }
    }
}
