package dev.codeagent.sandbox.docker;

import dev.codeagent.domain.execution.Outcome;

/**
 * Turns how a container's program ended into an {@link Outcome}, the same way the process tier
 * does: the limits the sandbox enforced itself first, then the kernel's verdicts (OOM kill, CPU
 * limit), then what the interpreter said on its way out (MemoryError, a file past the size limit,
 * a full tmpfs).
 */
final class OutcomeRules {

    static final int SIGKILL = 9;
    static final int SIGXCPU = 24;
    static final int SIGXFSZ = 25;

    private OutcomeRules() {
    }

    /**
     * How the program ended.
     *
     * @param exitCode its exit status, or null when a signal ended it
     * @param signal the signal that ended it, or null
     * @param oomKilled whether the kernel's OOM killer struck in its container
     * @param cpuLimitHit whether its CPU time reached the CPU limit
     * @param stderr what was kept of its stderr
     */
    record Ending(Integer exitCode, Integer signal, boolean oomKilled, boolean cpuLimitHit, String stderr) {
    }

    /** The outcome and a short explanation (null for plain success or failure). */
    record Verdict(Outcome outcome, Integer exitCode, Integer signal, String detail) {
    }

    static Verdict classify(Ending e, long memoryBytes, long maxFileBytes, long tmpfsBytes) {
        Integer signal = e.signal();
        Integer exitCode = e.exitCode();
        boolean ok = exitCode != null && exitCode == 0;
        if (e.oomKilled() && !ok) {
            return new Verdict(Outcome.MEMORY_LIMIT, exitCode, signal,
                    "killed by the container's memory limit of " + bytes(memoryBytes));
        }
        if (ok) {
            return new Verdict(Outcome.OK, 0, null, null);
        }
        if (signal != null && (signal == SIGXCPU || signal == SIGKILL && e.cpuLimitHit())) {
            return new Verdict(Outcome.TIME_LIMIT, null, signal, "CPU time limit reached");
        }
        if (signal != null && signal == SIGXFSZ) {
            return new Verdict(Outcome.OUTPUT_LIMIT, null, signal, "wrote a file past the file-size limit of " + bytes(maxFileBytes));
        }
        String tail = lastLines(e.stderr());
        if (tail.contains("MemoryError")) {
            return new Verdict(Outcome.MEMORY_LIMIT, exitCode, signal, "ran out of memory (limit " + bytes(memoryBytes) + ")");
        }
        if (tail.contains("[Errno 27] File too large")) {
            return new Verdict(Outcome.OUTPUT_LIMIT, exitCode, signal, "wrote a file past the file-size limit of " + bytes(maxFileBytes));
        }
        if (tail.contains("[Errno 28] No space left on device")) {
            return new Verdict(Outcome.OUTPUT_LIMIT, exitCode, signal, "filled its writable space (" + bytes(tmpfsBytes) + ")");
        }
        return new Verdict(Outcome.RUNTIME_ERROR, exitCode, signal, signal != null ? "killed by signal " + signal : null);
    }

    /** The last few lines of stderr: where a traceback names its exception. */
    private static String lastLines(String stderr) {
        int from = stderr.length();
        for (int lines = 0; lines < 4 && from > 0; lines++) {
            from = stderr.lastIndexOf('\n', from - 2);
            if (from < 0) {
                from = 0;
            }
        }
        return stderr.substring(Math.max(0, from));
    }

    static String bytes(long n) {
        if (n >= 1024L * 1024 && n % (1024L * 1024) == 0) {
            return n / (1024L * 1024) + " MiB";
        }
        if (n >= 1024 && n % 1024 == 0) {
            return n / 1024 + " KiB";
        }
        return n + " bytes";
    }
}
