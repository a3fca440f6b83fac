package dev.codeagent.cli;

import dev.codeagent.domain.execution.Execution;

/**
 * The exit statuses of {@code codeagent}. {@code exec} mirrors the program where the program decided
 * how it ended and uses the statuses of GNU {@code timeout} and the shell where a limit or the
 * sandbox did.
 */
public final class ExitStatus {

    /** Success; for {@code exec}, the program exited 0. */
    public static final int OK = 0;
    /** {@code solve}: not solved; anywhere: an unexpected internal error; {@code runs show}: no such run. */
    public static final int FAILURE = 1;
    /** Bad usage or bad input: unknown option, bad value, missing file, invalid config or task. */
    public static final int USAGE = 2;
    /** The program ran out of time (wall clock or CPU), as GNU {@code timeout} reports it. */
    public static final int TIME_LIMIT = 124;
    /** The sandbox itself failed or is unavailable here; the program may not have run at all. */
    public static final int SANDBOX_FAILED = 125;
    /** The code policy refused to run the program (like the shell's "cannot execute"). */
    public static final int POLICY_REFUSED = 126;
    /** Interrupted (Ctrl-C): 128 + SIGINT. */
    public static final int INTERRUPTED = 130;
    /** The program went over its memory limit: 128 + SIGKILL, as an out-of-memory kill reads in a shell or Docker. */
    public static final int MEMORY_LIMIT = 137;
    /** Output or a file went past its cap: 128 + SIGXFSZ, the signal of an exceeded file-size limit. */
    public static final int OUTPUT_LIMIT = 153;

    private static final int SIGNAL_BASE = 128;

    private ExitStatus() {
    }

    /** The status {@code codeagent exec} ends with for this execution. */
    public static int of(Execution execution) {
        switch (execution.outcome()) {
            case OK:
            case RUNTIME_ERROR:
                return mirror(execution);
            case TIME_LIMIT:
                return TIME_LIMIT;
            case MEMORY_LIMIT:
                return MEMORY_LIMIT;
            case OUTPUT_LIMIT:
                return OUTPUT_LIMIT;
            case COMPILATION_ERROR:
                // as the compiler ended: its own status (gcc's 1), or the compile limit's
                return execution.compile() == null ? FAILURE : of(execution.compile());
            case POLICY_VIOLATION:
                return POLICY_REFUSED;
            case SANDBOX_ERROR:
            default:
                return SANDBOX_FAILED;
        }
    }

    private static int mirror(Execution e) {
        if (e.exitCode() != null && (e.exitCode() != 0 || e.ok())) {
            return e.exitCode() & 0xff;
        }
        if (e.signal() != null && e.signal() > 0) {
            return SIGNAL_BASE + e.signal();
        }
        // a failure the sandbox saw without an exit code or signal: still a failure
        return e.ok() ? OK : FAILURE;
    }
}
