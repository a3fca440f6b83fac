package dev.codeagent.sandbox.process;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Kills what a run started. The order is: a snapshot of the direct child's descendants (with a pid
 * namespace, killing the namespace's init makes the kernel kill everything in it); then, with an own uid,
 * every process of that uid until none is left (nothing else runs as it, so this also finds processes that
 * left the tree by double-forking); without one, the child's process group and session; then the direct
 * child's descendants again until it has no child left, dead or alive; and the direct child last. The direct
 * child is the compiled launcher, the run's reaper ({@code launch.c}): killed with the rest, the zombies it had
 * not reaped yet went to the host's pid 1, which in a container without an init is this JVM, which never reaps
 * them (they filled their uid's RLIMIT_NPROC). The second round finds what the first could not: a launcher's
 * child forked after the snapshot, still root before it drops to the run's uid.
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
            killDescendants(direct, tree);
        }
        boolean gone = true;
        if (uid >= 0) {
            gone = Reaper.sweepUid(uid, SWEEP);
        } else if (direct != null && !pidNamespace) {
            gone = sweepGroup(direct.pid());
        }
        if (direct != null) {
            gone = killUntilChildless(direct, tree) && gone;
            tree.add(direct.toHandle());
            direct.destroyForcibly();
        }
        return waitGone(tree) && gone;
    }

    /** Kills {@code direct}'s descendants until it has no child, not even an unreaped one (bounded). */
    private static boolean killUntilChildless(Process direct, List<ProcessHandle> tree) {
        long deadline = System.nanoTime() + SWEEP.toNanos();
        while (direct.isAlive() && HostProcesses.hasChildren(direct.pid())) {
            killDescendants(direct, tree);
            if (System.nanoTime() > deadline) {
                return !direct.isAlive() || !HostProcesses.hasChildren(direct.pid());
            }
            Cleanup.pause(2);
        }
        return true;
    }

    /**
     * Kills a snapshot of {@code direct}'s descendants, only while {@code direct} is alive before and after it: once
     * the JDK has reaped it, its pid may be another process's (the launcher ends by itself once its children are
     * gone), whose children the JDK's start-time check would take for its own; while it is unreaped, it is not.
     */
    private static void killDescendants(Process direct, List<ProcessHandle> tree) {
        if (!direct.isAlive()) {
            return;
        }
        List<ProcessHandle> found = direct.descendants().toList();
        if (!direct.isAlive()) {
            return;
        }
        tree.addAll(found);
        found.forEach(ProcessHandle::destroyForcibly);
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
            if (System.nanoTime() > deadline) {
                return HostProcesses.inGroupOrSession(id).isEmpty();
            }
            Cleanup.pause(2);
        }
    }

    private static boolean waitGone(List<ProcessHandle> tree) {
        long deadline = System.nanoTime() + SWEEP.toNanos();
        for (ProcessHandle h : tree) {
            while (HostProcesses.alive(h.pid())) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Cleanup.pause(2);
            }
        }
        return true;
    }
}
