package dev.codeagent.sandbox.process;

/**
 * Which CPU a judged sample's two sides share. The candidate and its judge take turns (a call, its reply), hundreds
 * of times a sample on suites with many calls; a turn that wakes the other side on another CPU cost ~50 µs of CPU
 * here (the idle CPU's wake-up, under a hypervisor an exit), one on the same CPU ~8 µs. So both sides of a sample are
 * pinned to one CPU (an index the zygote and the judge server map onto the CPUs they may use), the one with the
 * fewest samples on it, so that concurrent samples spread over the CPUs as the scheduler would spread them.
 */
final class CpuSlots {

    private final int[] holders;

    CpuSlots(int cpus) {
        this.holders = new int[Math.max(1, cpus)];
    }

    /** The index of the CPU with the fewest samples; give it back with {@link #release}. */
    synchronized int acquire() {
        int best = 0;
        for (int i = 1; i < holders.length; i++) {
            if (holders[i] < holders[best]) {
                best = i;
            }
        }
        holders[best]++;
        return best;
    }

    /** The index as the zygote's R line and the judge server's J line carry it: "-" for none. */
    static String wire(int cpu) {
        return cpu < 0 ? "-" : Integer.toString(cpu);
    }

    synchronized void release(int cpu) {
        if (cpu >= 0 && cpu < holders.length && holders[cpu] > 0) {
            holders[cpu]--;
        }
    }
}
