package dev.codeagent.domain.execution;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Turns how a program ended into an {@link Outcome}, the same way for every tier. The limits the sandbox's
 * supervisor enforced itself come first (they are facts the program cannot fake), then the kernel's verdicts
 * (the OOM killer, the CPU and file-size rlimit signals), then what the program's runtime said on its way
 * out (a Python {@code MemoryError}, a V8 heap overflow, a file past the size limit, a full scratch space,
 * read from the end of stderr through the {@link LanguageProfile}s). Stateless and thread-safe.
 */
public final class OutcomeClassifier {

    public static final int SIGKILL = 9;
    public static final int SIGXCPU = 24;
    public static final int SIGXFSZ = 25;

    /** How much of the end of stderr is read for a runtime's last words. */
    private static final int TAIL_CHARS = 4096;
    /** Below this, a program killed by SIGKILL with its CPU time at the limit was killed by RLIMIT_CPU's hard limit. */
    private static final Duration CPU_SLACK = Duration.ofMillis(50);

    private static final Pattern FILE_TOO_LARGE = Pattern.compile("File too large|EFBIG");
    private static final Pattern NO_SPACE = Pattern.compile("No space left on device|ENOSPC|Disk quota exceeded");
    /** Out-of-memory words of any runtime: a program may run another language's interpreter as a child. */
    private static final Pattern ANY_RUNTIME_OUT_OF_MEMORY = Pattern.compile("Cannot allocate memory|std::bad_alloc");

    /** Why the sandbox's supervisor ended the run itself, if it did. */
    public enum Enforced {
        /** The wall-clock limit passed. */
        WALL_TIME,
        /** stdout or stderr went past its cap. */
        OUTPUT,
        /**
         * The run's memory was used up (what reclaim cannot give back reached the limit, or the group thrashed at it)
         * and the supervisor (or the OOM killer on its behalf) ended the whole run.
         */
        MEMORY,
        /** The sandbox was closed while the program ran. */
        CLOSED
    }

    /**
     * The facts of a program's end, from where the program cannot write them: its wait status, what its
     * supervisor enforced, what the kernel reported.
     *
     * @param language what the program was written in
     * @param exitCode its exit status, or null when a signal ended it or it never exited by itself
     * @param signal the signal that ended it, or null
     * @param enforced why the supervisor ended it, or null when the program ended by itself
     * @param stdoutOverflowed whether stdout went past its cap
     * @param stderrOverflowed whether stderr went past its cap
     * @param oomKilled whether the kernel's OOM killer struck in the run's memory group
     * @param cpuTime CPU time the program used, or null when unknown
     * @param stderr what was kept of its stderr
     * @param writableBytes the size of the run's writable scratch space, or null when unknown (for the detail only)
     */
    public record Termination(Language language, Integer exitCode, Integer signal, Enforced enforced,
            boolean stdoutOverflowed, boolean stderrOverflowed, boolean oomKilled, Duration cpuTime, String stderr,
            Long writableBytes) {

        public Termination {
            Objects.requireNonNull(language, "language");
            stderr = stderr == null ? "" : stderr;
        }

        /** A program its supervisor ended (with SIGKILL) for the given reason. */
        public static Termination enforced(Language language, Enforced why, boolean stdoutOverflowed,
                boolean stderrOverflowed, String stderr) {
            return new Termination(language, null, SIGKILL, why, stdoutOverflowed, stderrOverflowed, false, null, stderr, null);
        }

        /** A program that ended by itself, with an exit status or a signal. */
        public static Termination ended(Language language, Integer exitCode, Integer signal, Duration cpuTime, String stderr) {
            return new Termination(language, exitCode, signal, null, false, false, false, cpuTime, stderr, null);
        }

        public Termination withOverflow(boolean stdout, boolean stderr) {
            return new Termination(language, exitCode, signal, enforced, stdout, stderr, oomKilled, cpuTime, this.stderr,
                    writableBytes);
        }

        public Termination withOomKilled(boolean oom) {
            return new Termination(language, exitCode, signal, enforced, stdoutOverflowed, stderrOverflowed, oom, cpuTime,
                    stderr, writableBytes);
        }

        public Termination withWritableBytes(Long bytes) {
            return new Termination(language, exitCode, signal, enforced, stdoutOverflowed, stderrOverflowed, oomKilled,
                    cpuTime, stderr, bytes);
        }

        boolean exitedCleanly() {
            return enforced == null && signal == null && exitCode != null && exitCode == 0;
        }
    }

    /** An outcome with a short explanation (null for plain success). */
    public record Classification(Outcome outcome, String detail) {
        public Classification {
            Objects.requireNonNull(outcome, "outcome");
        }
    }

    /** The outcome of a run that ended as {@code t} says, under {@code limits}. */
    public Classification classify(Termination t, ResourceLimits limits) {
        Objects.requireNonNull(t, "termination");
        Objects.requireNonNull(limits, "limits");
        if (t.enforced() == Enforced.CLOSED) {
            return new Classification(Outcome.SANDBOX_ERROR, "the sandbox was closed while the program ran");
        }
        if (t.enforced() == Enforced.WALL_TIME) {
            // a runtime that reported running out of memory and then never finished (at the memory group's edge
            // exit can stall in reclaim) ran out of memory first; printing the words instead gains a program nothing
            if (outOfMemory(t.language(), tail(t.stderr()))) {
                return new Classification(Outcome.MEMORY_LIMIT, "ran out of its memory limit of " + bytes(limits.memoryBytes())
                        + " and was then killed at the wall-time limit of " + duration(limits.wallTime()));
            }
            return new Classification(Outcome.TIME_LIMIT, "killed at the wall-time limit of " + duration(limits.wallTime()));
        }
        if (t.stdoutOverflowed() || t.stderrOverflowed() || t.enforced() == Enforced.OUTPUT) {
            return new Classification(Outcome.OUTPUT_LIMIT, (t.stdoutOverflowed() || !t.stderrOverflowed() ? "stdout" : "stderr")
                    + " went past its cap of " + bytes(limits.maxOutputBytes()));
        }
        if (t.enforced() == Enforced.MEMORY) {
            // the supervisor ended it (the group's memory used up or thrashing at its limit), or the OOM killer did
            return new Classification(Outcome.MEMORY_LIMIT, "the memory limit of " + bytes(limits.memoryBytes())
                    + " was reached (scratch files count too) and the run was ended");
        }
        if (t.exitedCleanly()) {
            // a program that survived an OOM kill of a child, or printed "MemoryError" itself, and exited 0 is fine
            return new Classification(Outcome.OK, null);
        }
        Integer signal = t.signal();
        if (t.oomKilled()) {
            return new Classification(Outcome.MEMORY_LIMIT, "killed by the memory limit of " + bytes(limits.memoryBytes()));
        }
        boolean cpuAtLimit = t.cpuTime() != null && t.cpuTime().plus(CPU_SLACK).compareTo(limits.cpuTime()) >= 0;
        if (signal != null && signal == SIGXCPU && !sigxcpuAtLimit(t.cpuTime(), limits)) {
            // any process may send itself SIGXCPU: only CPU time measured where the program cannot write makes it the
            // kernel's (RLIMIT_CPU signals only past the limit); a sandbox without such a measure has none to show
            return new Classification(Outcome.RUNTIME_ERROR, "killed by signal " + SIGXCPU + " (SIGXCPU) at "
                    + (t.cpuTime() == null ? "an unmeasured CPU time" : duration(t.cpuTime()) + " of CPU time")
                    + ", short of the CPU-time limit of " + duration(limits.cpuTime()) + ": not the limit's doing");
        }
        if (signal != null && (signal == SIGXCPU || signal == SIGKILL && cpuAtLimit)) {
            if (outOfMemory(t.language(), tail(t.stderr()))) {
                return new Classification(Outcome.MEMORY_LIMIT, "ran out of its memory limit of " + bytes(limits.memoryBytes())
                        + " and was then killed at the CPU-time limit of " + duration(limits.cpuTime()));
            }
            return new Classification(Outcome.TIME_LIMIT, "killed at the CPU-time limit of " + duration(limits.cpuTime()));
        }
        if (signal != null && signal == SIGXFSZ) {
            return new Classification(Outcome.OUTPUT_LIMIT, "a file went past the size limit of " + bytes(limits.maxFileBytes()));
        }
        String tail = tail(t.stderr());
        if (outOfMemory(t.language(), tail)) {
            return new Classification(Outcome.MEMORY_LIMIT, "ran out of its memory limit of " + bytes(limits.memoryBytes()));
        }
        if (FILE_TOO_LARGE.matcher(tail).find()) {
            return new Classification(Outcome.OUTPUT_LIMIT, "a file went past the size limit of " + bytes(limits.maxFileBytes()));
        }
        if (NO_SPACE.matcher(tail).find()) {
            return new Classification(Outcome.OUTPUT_LIMIT, "filled its writable space"
                    + (t.writableBytes() == null ? "" : " (" + bytes(t.writableBytes()) + ")"));
        }
        if (signal != null) {
            return new Classification(Outcome.RUNTIME_ERROR, "killed by signal " + signal);
        }
        return new Classification(Outcome.RUNTIME_ERROR, t.exitCode() == null ? "failed" : "exited with status " + t.exitCode());
    }

    /**
     * Whether a SIGXCPU can be the kernel's: the CPU time measured reaches the limit, within a tenth of it (the kernel
     * checks RLIMIT_CPU against tick-sampled time, which can run ahead of an exact figure: SIGXCPU came at 0.98 s of a
     * control group's CPU under a 1 s limit).
     */
    private static boolean sigxcpuAtLimit(Duration cpu, ResourceLimits limits) {
        if (cpu == null) {
            return false;
        }
        Duration tolerance = limits.cpuTime().dividedBy(10);
        return cpu.plus(tolerance.compareTo(CPU_SLACK) > 0 ? tolerance : CPU_SLACK).compareTo(limits.cpuTime()) >= 0;
    }

    /** Its own runtime's words first; any other profile's too, since a program may run another interpreter as a child. */
    private static boolean outOfMemory(Language language, String tail) {
        if (LanguageProfile.of(language).saysOutOfMemory(tail) || ANY_RUNTIME_OUT_OF_MEMORY.matcher(tail).find()) {
            return true;
        }
        for (Language other : Language.values()) {
            if (other != language && LanguageProfile.of(other).saysOutOfMemory(tail)) {
                return true;
            }
        }
        return false;
    }

    /** The last part of stderr, where a runtime reports the error that ended it. */
    private static String tail(String s) {
        return s.length() <= TAIL_CHARS ? s : s.substring(s.length() - TAIL_CHARS);
    }

    /** {@code 2s}, {@code 1500ms}. */
    public static String duration(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /** {@code 256 MiB}, {@code 4 KiB}, {@code 1000 bytes}. */
    public static String bytes(long n) {
        if (n >= 1024L * 1024 && n % (1024L * 1024) == 0) {
            return n / (1024L * 1024) + " MiB";
        }
        if (n >= 1024 && n % 1024 == 0) {
            return n / 1024 + " KiB";
        }
        return n + " bytes";
    }
}
