package dev.codeagent.sandbox.docker;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A lock shared by every JVM on this machine that runs the docker tests (other builds run them
 * too): tests that merely use the engine hold it shared; the test that stops the engine holds it
 * exclusively, so it never pulls the engine from under another build's tests, and they never start
 * while it is down. A file lock, so a JVM that dies releases it.
 */
final class EngineLock {

    private static final Path FILE = Path.of(System.getProperty("java.io.tmpdir"), "codeagent-docker-tests.lock");
    private static FileChannel channel;
    private static FileLock held;

    private EngineLock() {
    }

    /** Takes the lock shared for the rest of this JVM's life (or until {@link #exclusive} takes over); waits at most {@code wait}. */
    static synchronized void shared(Duration wait) {
        if (held != null) {
            return;
        }
        held = acquire(true, wait);
    }

    /** Takes the lock exclusively; null when other holders did not let go within {@code wait}. */
    static synchronized AutoCloseable exclusive(Duration wait) {
        release();
        FileLock lock = acquire(false, wait);
        if (lock == null) {
            return null;
        }
        held = lock;
        return () -> {
            synchronized (EngineLock.class) {
                release();
            }
        };
    }

    private static void release() {
        if (held != null) {
            try {
                held.release();
            } catch (IOException e) {
                // the channel is gone; so is the lock
            }
            held = null;
        }
    }

    private static FileLock acquire(boolean shared, Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            if (channel == null || !channel.isOpen()) {
                channel = FileChannel.open(FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ);
            }
            while (true) {
                FileLock lock = channel.tryLock(0, Long.MAX_VALUE, shared);
                if (lock != null) {
                    return lock;
                }
                if (System.nanoTime() > deadline) {
                    return null;
                }
                Thread.sleep(100);
            }
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
