package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Tells the outcomes apart from what a run left: the sandbox's own reason to kill, the exit status
 * (a status of 129..159 means death by signal status-128, the convention of bwrap, shells and Java),
 * the CPU time and what the runtime said on stderr.
 */
final class OutcomeRules {

    static final int SIGKILL = 9;
    static final int SIGXCPU = 24;
    static final int SIGXFSZ = 25;

    private static final Pattern MEMORY = Pattern.compile(
            "(?m)^(\\w+\\.)*MemoryError\\b|JavaScript heap out of memory|Fatal process out of memory|Fatal process OOM"
                    + "|xmalloc: cannot allocate|Cannot allocate memory|std::bad_alloc|Fatal Python error: .*memory");
    private static final Pattern FILE_SIZE = Pattern.compile(
            "File too large|EFBIG|No space left on device|ENOSPC|Disk quota exceeded");
    private static final Pattern WRAPPER_FAILURE = Pattern.compile(
            "^(\\S*/)?(bwrap|setpriv|prlimit|unshare|setsid|time|sh|codeagent-boot): .*");

    /** How the detail of a run whose wrappers seem to have failed before the program started begins. */
    static final String WRAPPER_FAILURE_DETAIL = "the sandbox could not start the program: ";

    /** Why the sandbox itself ended a run, if it did. */
    enum Kill { WALL_TIME, OUTPUT, CANCELLED, CLOSED }

    /** An outcome with its explanation. */
    record Verdict(Outcome outcome, String detail) {
    }

    private OutcomeRules() {
    }

    /** Exit status to signal number, or null when it was a normal exit. */
    static Integer signalOf(int status) {
        return status > 128 && status < 160 ? status - 128 : null;
    }

    static Verdict classify(Kill kill, Integer exitCode, Integer signal, String stdout, String stderr,
            boolean stdoutOverflow, boolean stderrOverflow, Duration cpu, ResourceLimits limits) {
        if (kill == Kill.CLOSED) {
            return new Verdict(Outcome.SANDBOX_ERROR, "the sandbox was closed while the program ran");
        }
        if (kill == Kill.WALL_TIME) {
            return new Verdict(Outcome.TIME_LIMIT, "killed at the wall-time limit of " + millis(limits.wallTime()));
        }
        if (stdoutOverflow || stderrOverflow || kill == Kill.OUTPUT) {
            return new Verdict(Outcome.OUTPUT_LIMIT, (stdoutOverflow ? "stdout" : "stderr") + " went past its cap of "
                    + limits.maxOutputBytes() + " bytes");
        }
        if (signal != null && signal == SIGXCPU) {
            return new Verdict(Outcome.TIME_LIMIT, "killed at the CPU-time limit of " + millis(limits.cpuTime()));
        }
        if (signal != null && signal == SIGKILL && cpu != null && cpu.compareTo(limits.cpuTime()) >= 0) {
            return new Verdict(Outcome.TIME_LIMIT, "killed at the CPU-time limit of " + millis(limits.cpuTime()));
        }
        if (signal != null && signal == SIGXFSZ) {
            return new Verdict(Outcome.OUTPUT_LIMIT, "a file went past the size limit of " + limits.maxFileBytes() + " bytes");
        }
        boolean failed = signal != null || (exitCode != null && exitCode != 0);
        if (failed && stdout.isEmpty() && exitCode != null && WRAPPER_FAILURE.matcher(firstLine(stderr)).matches()
                && (exitCode == 1 || exitCode >= 125)) {
            return new Verdict(Outcome.SANDBOX_ERROR, WRAPPER_FAILURE_DETAIL + firstLine(stderr));
        }
        if (failed && MEMORY.matcher(tail(stderr)).find()) {
            return new Verdict(Outcome.MEMORY_LIMIT, "ran out of its memory limit of " + limits.memoryBytes() + " bytes");
        }
        if (failed && FILE_SIZE.matcher(tail(stderr)).find()) {
            return new Verdict(Outcome.OUTPUT_LIMIT, "hit the file-size or disk limit (" + limits.maxFileBytes()
                    + " bytes per file)");
        }
        if (!failed) {
            return new Verdict(Outcome.OK, null);
        }
        if (signal != null) {
            return new Verdict(Outcome.RUNTIME_ERROR, "killed by signal " + signal);
        }
        return new Verdict(Outcome.RUNTIME_ERROR, "exited with status " + exitCode);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** The last part of stderr, where a runtime reports the error that ended it. */
    private static String tail(String s) {
        return s.length() <= 4096 ? s : s.substring(s.length() - 4096);
    }

    private static String millis(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
