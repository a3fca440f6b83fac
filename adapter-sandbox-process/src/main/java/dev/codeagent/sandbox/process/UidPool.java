package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongPredicate;

/**
 * Unprivileged uids for concurrent executions, one per execution at a time, so that RLIMIT_NPROC
 * counts only that execution's processes and no run can signal another. A uid is claimed across JVMs on
 * this host by holding an advisory lock on a file named for it (released by the kernel if the JVM dies).
 * A uid that anything else might be using — a process runs as it, an account or a subordinate-id range
 * (containers) covers it — is skipped, never swept: the sandbox kills only processes of uids it holds.
 */
final class UidPool implements AutoCloseable {

    static final long BASE = 200_000;
    static final int MAX = 4096;

    private final Path lockDir;
    private final LongPredicate taken;
    private final Deque<Long> free = new ArrayDeque<>();
    /** Every uid this JVM holds, whichever pool claimed it, with its lock. */
    private static final Map<Long, FileLock> JVM_HELD = new HashMap<>();

    private final java.util.Set<Long> held = new java.util.HashSet<>();
    private boolean closed;

    /**
     * @param lockDir where the lock files live (created 0700)
     * @param taken whether something outside the sandbox uses a uid (then it is skipped)
     */
    UidPool(Path lockDir, LongPredicate taken) {
        this.lockDir = lockDir;
        this.taken = taken;
    }

    /** One directory per host, whatever work root a sandbox uses, so that every JVM sees every claim. */
    static Path hostLockDir() {
        Path runLock = Path.of("/run/lock");
        return (Files.isDirectory(runLock) ? runLock : Path.of("/tmp")).resolve("codeagent-uids");
    }

    /**
     * Whether no JVM on this host holds the uid now (its runs, if any, are over). Takes and drops the lock
     * to find out, never when this JVM holds it.
     */
    static boolean unclaimed(Path lockDir, long uid) {
        if (uid < BASE || uid >= BASE + MAX) {
            return false;
        }
        synchronized (JVM_HELD) {
            if (JVM_HELD.containsKey(uid)) {
                return false;
            }
            Path file = lockDir.resolve("uid-" + uid + ".lock");
            if (!Files.exists(file)) {
                return true;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                FileLock lock = ch.tryLock();
                if (lock == null) {
                    return false;
                }
                lock.release();
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
        if (closed) {
            unlock(uid);
            return;
        }
        free.addFirst(uid);
    }

    /** Never hands the uid out again (a process of it could not be killed). */
    synchronized void retire(long uid) {
        unlock(uid);
    }

    private long claimNew() {
        try {
            Files.createDirectories(lockDir);
            try {
                Files.setPosixFilePermissions(lockDir, PosixFilePermissions.fromString("rwx------"));
            } catch (IOException notOurs) {
                // another user's directory: locking below still tells us whether a uid is free
            }
        } catch (IOException e) {
            throw new SandboxUnavailableException("cannot create the uid lock directory " + lockDir + ": " + e.getMessage(), e);
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
                    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
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
                    JVM_HELD.put(uid, lock);
                    return uid;
                } catch (IOException e) {
                    throw new SandboxUnavailableException("cannot lock " + file + ": " + e.getMessage(), e);
                }
            }
        }
        throw new SandboxUnavailableException("all " + MAX + " sandbox uids from " + BASE + " are in use on this host");
    }

    private void unlock(long uid) {
        held.remove(uid);
        synchronized (JVM_HELD) {
            FileLock lock = JVM_HELD.remove(uid);
            if (lock != null) {
                try {
                    lock.channel().close();
                } catch (IOException ignored) {
                    // the kernel drops the lock with the descriptor either way
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (Long uid : held.toArray(new Long[0])) {
            unlock(uid);
        }
        free.clear();
    }
}
