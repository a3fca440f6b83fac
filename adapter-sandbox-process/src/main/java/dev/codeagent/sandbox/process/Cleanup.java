package dev.codeagent.sandbox.process;

/**
 * The pause of a clean-up loop: killing a run's processes, emptying and removing its groups, waiting for a discard.
 * Each such loop is bounded by its own deadline, and each must run to its end whatever the thread's interrupt says: one
 * cut short left a pre-started sandbox's uid locked for the JVM's life and its group on the host (a sandbox closed on
 * an interrupted thread). So the pause sleeps through an interrupt and keeps it for the caller.
 */
final class Cleanup {

    private Cleanup() {
    }

    static void pause(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        boolean interrupted = false;
        for (long left = millis * 1_000_000L; left > 0; left = end - System.nanoTime()) {
            try {
                Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
