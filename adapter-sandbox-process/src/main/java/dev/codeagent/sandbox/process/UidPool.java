package dev.codeagent.sandbox.process;

import dev.codeagent.application.host.PrivateDirectory;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unprivileged uids for concurrent executions, one per execution at a time, so that RLIMIT_NPROC
 * counts only that execution's processes and no run can signal another. A uid is claimed across JVMs on
 * this host by holding an advisory lock on a file named for it (released by the kernel if the JVM dies).
 * A uid that anything else might be using — a process runs as it, an account or a subordinate-id range
 * (containers) covers it — is skipped, never swept: the sandbox kills only processes of uids it holds.
 *
 * <p>The lock directory is root's alone ({@link #hostLockDir}), made and checked with {@link PrivateDirectory},
 * and lock files are opened without following links: root creates files there, so a directory another user
 * made first would let them choose where (a link to {@code /etc/nologin}), and lock files they hold would
 * keep every uid "in use".
 */
final class UidPool implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(UidPool.class);

    static final long BASE = 200_000;
    static final int MAX = 4096;

    private final Path lockDir;
    private final List<Path> legacyDirs;
    private final LongPredicate taken;
    private final Deque<Long> free = new ArrayDeque<>();
    /** Every uid this JVM holds, whichever pool claimed it, with its lock. */
    private static final Map<Long, FileLock> JVM_HELD = new HashMap<>();
    /** The same uids' locks in earlier versions' directories (see {@link #legacyLockDirs}); guarded by JVM_HELD. */
    private static final Map<Long, List<FileLock>> JVM_LEGACY_HELD = new HashMap<>();

    private final java.util.Set<Long> held = new java.util.HashSet<>();
    private boolean closed;

    /**
     * @param lockDir where the lock files live (created 0700)
     * @param taken whether something outside the sandbox uses a uid (then it is skipped)
     */
    UidPool(Path lockDir, LongPredicate taken) {
        this(lockDir, List.of(), taken);
    }

    /**
     * @param legacyDirs lock directories of earlier versions, honoured only where root alone could have made
     *     them ({@link #heldByEarlierVersion})
     */
    UidPool(Path lockDir, List<Path> legacyDirs, LongPredicate taken) {
        this.lockDir = lockDir;
        this.legacyDirs = List.copyOf(legacyDirs);
        this.taken = taken;
    }

    /** The pool every sandbox of this host shares: {@link #hostLockDir}, minding {@link #legacyLockDirs}. */
    static UidPool forHost(LongPredicate taken) {
        return new UidPool(hostLockDir(), legacyLockDirs(), taken);
    }

    /**
     * One directory per host, whatever work root a sandbox uses, so that every JVM sees every claim: under
     * {@code /run} (root's, 0755), where no other user can make it first, unlike {@code /run/lock} or {@code /tmp}.
     */
    static Path hostLockDir() {
        Path run = Path.of("/run");
        return (Files.isDirectory(run) ? run : Path.of("/var/lib")).resolve("codeagent").resolve("uids");
    }

    /**
     * Where earlier versions kept their locks (world-writable parents). A JVM of such a version may still run on
     * this host (a rolling upgrade) and hold uids there: while such a directory is root's and closed to others, a
     * uid held there is not taken here, and a uid taken here is locked there too. One another user made is ignored.
     */
    static List<Path> legacyLockDirs() {
        return List.of(Path.of("/run/lock/codeagent-uids"), Path.of("/tmp/codeagent-uids"));
    }

    /**
     * Whether a JVM of an earlier version holds the uid in one of {@code dirs}. A directory counts only if
     * {@link PrivateDirectory#verify} finds it root's and closed to others: one another user made is theirs, and
     * locks held in it prove nothing (they would claim every uid). Its files are opened, never created, and never
     * through a link.
     */
    static boolean heldByEarlierVersion(List<Path> dirs, long uid) {
        for (Path dir : dirs) {
            try {
                PrivateDirectory.verify(dir);
            } catch (IOException missingOrNotRoots) {
                continue;
            }
            try (FileChannel ch = PrivateDirectory.open(dir.resolve("uid-" + uid + ".lock"), StandardOpenOption.WRITE)) {
                FileLock lock = ch.tryLock();
                if (lock == null) {
                    return true;
                }
                lock.release();
            } catch (NoSuchFileException never) {
                // no JVM of that version ever claimed it
            } catch (IOException | OverlappingFileLockException cannotTell) {
                return true;
            }
        }
        return false;
    }

    /** Whether a pool of this JVM holds the uid's lock (a uid in use or free in a pool; a retired one is not). */
    static boolean heldByThisJvm(long uid) {
        synchronized (JVM_HELD) {
            return JVM_HELD.containsKey(uid);
        }
    }

    /** The lock directory, made or checked; a directory another user could steer is refused in one line. */
    private static Path ensureLockDir(Path lockDir) {
        try {
            return PrivateDirectory.ensure(lockDir);
        } catch (PrivateDirectory.InsecurePathException e) {
            throw new SandboxUnavailableException("the process sandbox's uid lock directory is not safe: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot create the uid lock directory " + lockDir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether no JVM on this host holds the uid now (its runs, if any, are over). Takes and drops the lock
     * to find out, never when this JVM holds it.
     */
    static boolean unclaimed(Path lockDir, long uid) {
        return unclaimed(lockDir, legacyLockDirs(), uid);
    }

    static boolean unclaimed(Path lockDir, List<Path> legacyDirs, long uid) {
        if (uid < BASE || uid >= BASE + MAX) {
            return false;
        }
        synchronized (JVM_HELD) {
            if (JVM_HELD.containsKey(uid) || heldByEarlierVersion(legacyDirs, uid)) {
                return false;
            }
            try {
                PrivateDirectory.verify(lockDir);
            } catch (NoSuchFileException none) {
                return true;
            } catch (IOException notSafe) {
                // a lock directory another user could steer says nothing about which uids are free
                return false;
            }
            Path file = lockDir.resolve("uid-" + uid + ".lock");
            try (FileChannel ch = PrivateDirectory.open(file, StandardOpenOption.WRITE)) {
                FileLock lock = ch.tryLock();
                if (lock == null) {
                    return false;
                }
                lock.release();
                return true;
            } catch (NoSuchFileException never) {
                return true;
            } catch (IOException | OverlappingFileLockException e) {
                return false;
            }
        }
    }

    /** A uid no other execution on this host is using now. */
    long acquire() {
        synchronized (this) {
            if (closed) {
                throw new SandboxUnavailableException("the process sandbox is closed");
            }
            Long uid = free.pollFirst();
            if (uid != null) {
                return uid;
            }
        }
        long uid = claimNew();
        synchronized (this) {
            held.add(uid);
            if (!closed) {
                return uid;
            }
            unlock(uid);
        }
        throw new SandboxUnavailableException("the process sandbox is closed");
    }

    synchronized void release(long uid) {
        if (!held.contains(uid) || free.contains(uid)) {
            // not this pool's (retired, or another's) or given back already: freeing it again would let two runs
            // take it
            log.warn("process sandbox: uid {} given back twice, or not this pool's; ignored", uid);
            return;
        }
        if (closed) {
            unlock(uid);
            return;
        }
        free.addFirst(uid);
    }

    /** Never hands the uid out again (a process of it could not be killed). */
    synchronized void retire(long uid) {
        if (!held.contains(uid)) {
            log.warn("process sandbox: uid {} retired twice, or not this pool's; ignored", uid);
            return;
        }
        // given back before it was found unclean: off the free list too, or it would be handed out unlocked
        free.remove(uid);
        unlock(uid);
    }

    private long claimNew() {
        ensureLockDir(lockDir);
        List<Path> legacy = new ArrayList<>();
        for (Path dir : legacyDirs) {
            try {
                legacy.add(PrivateDirectory.verify(dir));
            } catch (IOException missingOrNotRoots) {
                // nothing an earlier version of this sandbox can be holding there
            }
        }
        synchronized (JVM_HELD) {
            for (int i = 0; i < MAX; i++) {
                long uid = BASE + i;
                // never open the lock file of a uid this JVM holds: closing any descriptor of a file drops
                // every POSIX lock the process has on it, so a probe would hand our uid to another JVM
                if (JVM_HELD.containsKey(uid)) {
                    continue;
                }
                Path file = lockDir.resolve("uid-" + uid + ".lock");
                try {
                    FileChannel ch = PrivateDirectory.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock;
                    try {
                        lock = ch.tryLock();
                    } catch (OverlappingFileLockException sameJvm) {
                        lock = null;
                    }
                    if (lock == null || taken.test(uid)) {
                        ch.close();
                        continue;
                    }
                    List<FileLock> legacyLocks = claimInLegacyDirs(legacy, uid);
                    if (legacyLocks == null) {
                        ch.close();
                        continue;
                    }
                    JVM_HELD.put(uid, lock);
                    if (!legacyLocks.isEmpty()) {
                        JVM_LEGACY_HELD.put(uid, legacyLocks);
                    }
                    return uid;
                } catch (IOException e) {
                    throw new SandboxUnavailableException("cannot lock " + file + ": " + e.getMessage(), e);
                }
            }
        }
        throw new SandboxUnavailableException("all " + MAX + " sandbox uids from " + BASE + " are in use on this host");
    }

    /**
     * The uid's locks in the earlier versions' directories that are root's ({@code dirs}, checked), taken too so
     * that a JVM of such a version running beside this one skips the uid as well; null when one of them holds it.
     */
    private static List<FileLock> claimInLegacyDirs(List<Path> dirs, long uid) {
        List<FileLock> locks = new ArrayList<>();
        for (Path dir : dirs) {
            FileChannel ch = null;
            try {
                ch = PrivateDirectory.open(dir.resolve("uid-" + uid + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = ch.tryLock();
                if (lock == null) {
                    ch.close();
                    locks.forEach(UidPool::closeQuietly);
                    return null;
                }
                locks.add(lock);
            } catch (IOException | OverlappingFileLockException cannotTell) {
                if (ch != null) {
                    closeQuietly(ch);
                }
                locks.forEach(UidPool::closeQuietly);
                return null;
            }
        }
        return locks;
    }

    private static void closeQuietly(FileLock lock) {
        closeQuietly(lock.channel());
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // the kernel drops the lock with the descriptor either way
        }
    }

    private void unlock(long uid) {
        if (!held.remove(uid)) {
            // not this pool's (any more): the lock in JVM_HELD may be another pool's now
            return;
        }
        synchronized (JVM_HELD) {
            FileLock lock = JVM_HELD.remove(uid);
            if (lock != null) {
                closeQuietly(lock);
            }
            List<FileLock> legacy = JVM_LEGACY_HELD.remove(uid);
            if (legacy != null) {
                legacy.forEach(UidPool::closeQuietly);
            }
        }
    }

    /**
     * Unlocks the uids no run is using; each one still in use stays locked until its run releases it (unlocked at
     * close, it was taken by the next pool at once while this pool's run still used it).
     */
    @Override
    public synchronized void close() {
        closed = true;
        for (Long uid : free) {
            unlock(uid);
        }
        free.clear();
    }
}
