package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class WarmPoolTest {

    /**
     * A sandbox that finishes starting after close() began is discarded by its starting thread; close() must wait
     * for that discard (its processes killed, its uid given back), not only for the start. It once returned first,
     * and the sandbox's owner then closed the uid pool under a discard still using one of its uids.
     */
    @Test
    void closeWaitsForASandboxThatFinishedStartingAfterItToBeDiscarded() throws Exception {
        assertThat(discardedWhenCloseReturned(false)).as("discarded before close() returned").isTrue();
    }

    /**
     * The same late sandbox, with close() called on a thread whose interrupt flag is set (a shutdown run by a
     * cancelled task, a test's timeout): close() must still wait for the discard. It returned at once, and the owner
     * then closed the uid pool and removed the state directory under a discard still running.
     */
    @Test
    void closeOnAnInterruptedThreadStillWaitsForALateSandboxsDiscard() throws Exception {
        assertThat(discardedWhenCloseReturned(true)).as("discarded before close() returned").isTrue();
    }

    /** Whether a sandbox that finished starting after close() began was discarded by the time close() returned. */
    private static boolean discardedWhenCloseReturned(boolean closerInterrupted) throws Exception {
        CountDownLatch closeBegan = new CountDownLatch(1);
        AtomicBoolean discarded = new AtomicBoolean();
        AtomicBoolean discardedWhenCloseReturned = new AtomicBoolean();
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            WarmPool pool = new WarmPool(1, threads, memory -> {
                try {
                    closeBegan.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return new WarmPool.Warm(null, 7, null, memory);
            }, warm -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                discarded.set(true);
            });
            pool.refill(64L << 20);
            Thread closer = new Thread(() -> {
                if (closerInterrupted) {
                    Thread.currentThread().interrupt();
                }
                pool.close();
                discardedWhenCloseReturned.set(discarded.get());
            });
            closer.start();
            Thread.sleep(100);
            closeBegan.countDown();
            closer.join(10_000);
            return discardedWhenCloseReturned.get();
        } finally {
            threads.shutdownNow();
        }
    }
}
