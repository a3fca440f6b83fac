package dev.codeagent.domain.execution;

import java.util.Set;

/**
 * Runs untrusted programs so that nothing they do reaches the host beyond what the tier's
 * {@link #isolation()} reports. Implementations are safe for concurrent use: many executions may
 * run at once without seeing each other.
 */
public interface Sandbox extends AutoCloseable {

    /** The tier name: {@code "process"} or {@code "docker"}. */
    String tier();

    /** The languages this sandbox can run on this host. */
    Set<Language> languages();

    /** The isolation this sandbox achieves on this host; never more than it enforces. */
    Isolation isolation();

    /**
     * Runs one program to the end or until a limit stops it, then removes every trace of it: no
     * process it started is alive and no file it wrote remains when this returns.
     *
     * <p>The program's own failures (non-zero exit, limits, crashes) are outcomes, not exceptions.
     * When the sandbox itself fails the result has outcome {@link Outcome#SANDBOX_ERROR}.
     *
     * <p>A {@linkplain ExecutionRequest#judged() judged} request runs the program through {@code candidate.py}
     * and the request's tests in a judge process under another uid that the program cannot read, signal, trace,
     * limit or write to; the limits bound the candidate (the judge has its own), the program's stdin, stdout and
     * stderr are its own as for a plain run and hold nothing of the judge's, and the judge's report comes back as
     * {@link Execution#judgement()} (null when it reported nothing). A tier that cannot judge this way returns
     * {@link Outcome#SANDBOX_ERROR} saying so; it never falls back to running the tests in the program's process.
     * Jobs of one {@linkplain JudgeJob#batch() batch} may be judged by one long-lived judge process for the batch
     * (a forked child each); every program still runs alone and reaches only its own job's judge.
     *
     * <p>A {@linkplain LanguageProfile#compiled() compiled} language's program is compiled by one decorator the
     * application puts over every tier ({@code CompilingSandbox}): it runs a compile stage and then a run stage, both
     * Bash programs, through the tier. A tier runs stages only: given a compiled language's program itself it throws
     * {@link IllegalArgumentException} rather than run its source.
     *
     * @throws UnsupportedLanguageException when {@link #languages()} lacks the program's language
     * @throws IllegalArgumentException from a tier given a compiled language's program (see above)
     * @throws ExecutionCancelledException when the calling thread is interrupted; the program has been
     *     killed and cleaned up before this is thrown, and the thread's interrupt flag is set again
     */
    Execution execute(ExecutionRequest request);

    /**
     * Starts one program and returns at once, its output reaching {@code listener} as it comes and its stdin open
     * for {@link LiveExecution#write} (the request's stdin is written first). Everything else is as for
     * {@link #execute}: the same limits, the same clean-up, the same {@link Execution} from
     * {@link LiveExecution#await()}. Not for judged requests. A compiled language's program is compiled first by the
     * application's {@code CompilingSandbox}, which then starts what was built; a tier refuses one, as for
     * {@link #execute}.
     *
     * @throws UnsupportedOperationException when this tier cannot run a program live (the default): the caller says
     *     so rather than falling back to a run whose output comes only at the end
     * @throws UnsupportedLanguageException when {@link #languages()} lacks the program's language
     * @throws IllegalArgumentException for a judged request or a compiled language
     */
    default LiveExecution start(ExecutionRequest request, LiveExecution.Listener listener) {
        throw new UnsupportedOperationException("the " + tier() + " sandbox cannot run a program live");
    }

    /**
     * Releases what the sandbox holds (pooled containers, threads). Executions in flight are killed and
     * their {@code execute} calls end with {@link ExecutionCancelledException}.
     */
    @Override
    void close();
}
