package dev.codeagent.domain.execution;

/**
 * A program running now, fed and watched while it runs (an interactive client such as Piston's
 * {@code /api/v2/connect}): what it writes reaches the {@link Listener} as it comes, its stdin stays open until
 * {@link #closeStdin()}, and it can be sent a signal. Its limits hold as for {@link Sandbox#execute}, and
 * {@link #await()} returns the same {@link Execution} that would have returned. Thread-safe.
 */
public interface LiveExecution {

    /** What a live program writes, as it comes; called from the sandbox's threads, one call at a time per stream. */
    @FunctionalInterface
    interface Listener {
        /**
         * @param stream {@link #STDOUT} or {@link #STDERR}
         * @param text what arrived, decoded as UTF-8 (a character split between two reads comes whole in the later one)
         */
        void output(int stream, String text);

        /**
         * For a compiled language's program: its compile stage as the caller sees it (the compiler's messages, or why
         * the program was refused before it), once, before any output of the program. When {@code built} is false
         * the program never starts and {@link LiveExecution#await()} returns the failure. Interpreted programs never
         * call it.
         */
        default void compiled(Execution compileStage, boolean built) {
        }

        int STDOUT = 1;
        int STDERR = 2;
    }

    /**
     * Sends text to the program's stdin, encoded as UTF-8. Text sent after the program closed its stdin or ended is
     * dropped, as a pipe with no reader drops it.
     *
     * @throws IllegalStateException after {@link #closeStdin()}
     */
    void write(String text);

    /** Closes the program's stdin: it reads end-of-file once it has read what was written. */
    void closeStdin();

    /**
     * Sends {@code signal} (a Linux signal number) to every process of the program, not to the sandbox's own
     * supervisor.
     *
     * @return whether any process got it (false once the program ended)
     * @throws IllegalArgumentException for a number that is not a signal
     */
    boolean signal(int signal);

    /** Kills the program now, as a cancel does; {@link #await()} then ends with {@link ExecutionCancelledException}. */
    void cancel();

    /**
     * Waits for the end of the program and its clean-up.
     *
     * @throws ExecutionCancelledException when it was cancelled or the sandbox closed while it ran
     */
    Execution await();
}
