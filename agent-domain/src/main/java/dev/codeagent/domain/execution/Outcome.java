package dev.codeagent.domain.execution;

/** How an execution ended, as the sandbox saw it. */
public enum Outcome {
    /** Exited with status 0 within every limit. */
    OK,
    /** Exited with a non-zero status or died of a signal that no limit explains. */
    RUNTIME_ERROR,
    /** Killed because it used up its wall-clock or CPU time. */
    TIME_LIMIT,
    /** Killed or failed because it hit its memory limit. */
    MEMORY_LIMIT,
    /** Killed because stdout or stderr went past its cap (or a file past the file-size limit). */
    OUTPUT_LIMIT,
    /**
     * A compiled language's compile stage failed (the compiler reported errors, or ran out of a limit of the
     * stage): the program never ran. {@link Execution#compile()} says how the stage ended.
     */
    COMPILATION_ERROR,
    /** Refused before running by the static code policy. */
    POLICY_VIOLATION,
    /** The sandbox itself failed; not the program's fault, and worth retrying. */
    SANDBOX_ERROR
}
