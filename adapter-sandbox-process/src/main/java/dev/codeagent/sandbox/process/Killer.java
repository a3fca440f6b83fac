package dev.codeagent.sandbox.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Kills what a run started. The order is: the direct child and a snapshot of its descendants (with a
 * pid namespace, killing the namespace's init makes the kernel kill everything in it); then, with an
 * own uid, every process of that uid until none is left (nothing else runs as it, so this also finds
 * processes that left the tree by double-forking); without one, the child's process group and session.
 */
final class Killer {

    private static final Duration SWEEP = Duration.ofSeconds(3);

    private final boolean pidNamespace;

    Killer(boolean pidNamespace) {
        this.pidNamespace = pidNamespace;
    }

    /** Kills everything of the run; true when verifiably nothing is left. */
    boolean killAll(Process direct, long uid) {
        List<ProcessHandle> tree = new ArrayList<>();
        if (direct != null) {
            direct.descendants().forEach(tree::add);
            tree.add(direct.toHandle());
            direct.destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
        }
        boolean gone = true;
        if (uid >= 0) {
            gone = Reaper.sweepUid(uid, SWEEP);
        } else if (direct != null && !pidNamespace) {
            gone = sweepGroup(direct.pid());
        }
        return waitGone(tree) && gone;
    }

    /**
     * After the program exited by itself: with a pid namespace the kernel has already killed and reaped
     * everything in it (its init exited); otherwise descendants may still run and are killed now.
     */
    boolean afterExit(Process direct, long uid) {
        if (pidNamespace) {
            return true;
        }
        return killAll(direct, uid);
    }

    private static boolean sweepGroup(long id) {
        long deadline = System.nanoTime() + SWEEP.toNanos();
        while (true) {
            List<Long> left = HostProcesses.inGroupOrSession(id);
            if (left.isEmpty()) {
                return true;
            }
            left.forEach(HostProcesses::kill);
            if (System.nanoTime() > deadline || !pause()) {
                return HostProcesses.inGroupOrSession(id).isEmpty();
            }
        }
    }

    private static boolean waitGone(List<ProcessHandle> tree) {
        long deadline = System.nanoTime() + SWEEP.toNanos();
        for (ProcessHandle h : tree) {
            while (HostProcesses.alive(h.pid())) {
                if (System.nanoTime() > deadline || !pause()) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean pause() {
        try {
            Thread.sleep(2);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
