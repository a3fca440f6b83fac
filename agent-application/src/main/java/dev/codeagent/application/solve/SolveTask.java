package dev.codeagent.application.solve;

import dev.codeagent.application.config.ResilienceConfig;
import dev.codeagent.application.config.SolveConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Placement;
import dev.codeagent.application.placement.Placements;
import dev.codeagent.domain.solving.CodeExtractor;
import dev.codeagent.domain.solving.CodeGenerator;
import dev.codeagent.domain.solving.GenerationRequest;
import dev.codeagent.domain.solving.GeneratorException;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Submission;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.security.SecureRandom;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent loop: generate → policy check → execute → judge, and on failure feed the error back and
 * go again while attempts remain. Every attempt is in the {@link RunLog} before the next begins.
 *
 * <p>Generation is retried with exponential backoff (honouring the endpoint's Retry-After) only for
 * transient failures, behind a circuit breaker shared by all runs of this instance; a rejected API
 * key ends the run at once. The program's own failures are never retried: they are verdicts. The
 * whole run has a deadline ({@link SolveConfig#runTimeout()}); each execution's wall time is cut to
 * what is left of it. Interrupting the calling thread cancels the run.
 */
public final class SolveTask {

    private static final Logger log = LoggerFactory.getLogger(SolveTask.class);
    private static final Duration MAX_RETRY_AFTER = Duration.ofSeconds(60);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ID_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

    private final CodeGenerator generator;
    private final ExecuteCode executeCode;
    private final RunLog runLog;
    private final SolveConfig config;
    private final Clock clock;
    private volatile Placement here;
    private final Judge judge = new Judge();
    private final CodeExtractor extractor = new CodeExtractor();
    private final FeedbackPrompt feedback = new FeedbackPrompt();
    private final Retry retry;
    private final CircuitBreaker circuitBreaker;

    public SolveTask(CodeGenerator generator, ExecuteCode executeCode, RunLog runLog, SolveConfig config, Clock clock) {
        this(generator, executeCode, runLog, config, clock, ResilienceConfig.defaults().circuitBreakers());
    }

    /**
     * @param breakers whose default configuration sets the model endpoint's circuit breaker (this task gets one of its
     *     own, so that a benchmark's samples do not trip the breaker of the runs people wait for)
     */
    @Inject
    public SolveTask(CodeGenerator generator, ExecuteCode executeCode, RunLog runLog, SolveConfig config, Clock clock,
            CircuitBreakerRegistry breakers) {
        this.generator = Objects.requireNonNull(generator, "generator");
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
        this.runLog = Objects.requireNonNull(runLog, "runLog");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.retry = Retry.of("llm", RetryConfig.custom()
                .maxAttempts(config.generatorRetries())
                .intervalBiFunction(backoff(config.retryBackoff()))
                .retryOnException(SolveTask::isTransient)
                .build());
        retry.getEventPublisher().onRetry(e -> log.warn("generator failed ({}), retry {} in {} ms",
                e.getLastThrowable() == null ? "?" : e.getLastThrowable().getMessage(),
                e.getNumberOfRetryAttempts(), e.getWaitInterval().toMillis()));
        this.circuitBreaker = CircuitBreaker.of("llm", CircuitBreakerConfig.from(breakers.getDefaultConfig())
                .recordException(SolveTask::isTransient)
                .build());
    }

    /** A fresh run id: 16 lower-case letters and digits, URL-safe. */
    public static String newRunId() {
        char[] id = new char[16];
        for (int i = 0; i < id.length; i++) {
            id[i] = ID_CHARS[RANDOM.nextInt(ID_CHARS.length)];
        }
        return new String(id);
    }

    /** Solves the task under a fresh run id. */
    public Run solve(Task task, RunListener listener) {
        return solve(newRunId(), task, listener);
    }

    /**
     * Works the task through to a final status and returns the final run. Never throws for the
     * code's failures, the generator's or the sandbox's: they end the run (FAILED, ERROR); only a
     * failing run log propagates.
     */
    public Run solve(String runId, Task task, RunListener listener) {
        return solve(runId, task, listener, () -> StopReason.CANCELLED);
    }

    /**
     * As {@link #solve(String, Task, RunListener)}, and when the calling thread is interrupted the run
     * ends with what {@code whenStopped} says at that moment: the caller that interrupted knows why
     * (a user's cancel, the process stopping), the loop does not.
     */
    public Run solve(String runId, Task task, RunListener listener, Supplier<StopReason> whenStopped) {
        return solve(runId, task, null, listener, whenStopped);
    }

    /**
     * As {@link #solve(String, Task, RunListener, Supplier)}, the run recorded as {@code owner}'s (see
     * {@link Run#owner}; null: no one's, and only an operator sees it).
     */
    public Run solve(String runId, Task task, String owner, RunListener listener, Supplier<StopReason> whenStopped) {
        Objects.requireNonNull(whenStopped, "whenStopped");
        Objects.requireNonNull(task, "task");
        RunListener events = safe(Objects.requireNonNull(listener, "listener"));
        Instant started = clock.instant();
        Instant deadline = started.plus(config.runTimeout());
        Run run = Run.started(runId, task, started, owner);
        runLog.started(run);
        events.on(new RunEvent.RunStarted(runId, started, task));
        return work(run, events, whenStopped, deadline, null);
    }

    /**
     * As {@link #solve(String, Task, RunListener, Supplier)}, the attempts sharing a live session: each attempt's
     * code first runs there as a cell, so what it defined stays for the next attempt, and on failure the model is
     * also told how the cell went and what names the session holds. The verdict still comes from the judge alone,
     * in a fresh sandbox, on the attempt's code run after the earlier cells that ran without error. The session is
     * the caller's, and stays open.
     *
     * @throws IllegalArgumentException when the task is not Python (sessions are Python kernels)
     */
    public Run solveInSession(String runId, Task task, RunListener listener, Supplier<StopReason> whenStopped,
            dev.codeagent.domain.session.Session session) {
        return solveInSession(runId, task, null, listener, whenStopped, session);
    }

    /** As {@link #solveInSession(String, Task, RunListener, Supplier, dev.codeagent.domain.session.Session)}, the run {@code owner}'s. */
    public Run solveInSession(String runId, Task task, String owner, RunListener listener, Supplier<StopReason> whenStopped,
            dev.codeagent.domain.session.Session session) {
        Objects.requireNonNull(session, "session");
        Objects.requireNonNull(whenStopped, "whenStopped");
        Objects.requireNonNull(task, "task");
        if (task.language() != dev.codeagent.domain.execution.Language.PYTHON) {
            throw new IllegalArgumentException("a session runs Python; this task is " + task.language().id());
        }
        RunListener events = safe(Objects.requireNonNull(listener, "listener"));
        Instant started = clock.instant();
        Run run = Run.started(runId, task, started, owner);
        runLog.started(run);
        events.on(new RunEvent.RunStarted(runId, started, task));
        return work(run, events, whenStopped, started.plus(config.runTimeout()), new SessionWorkspace(session));
    }

    /**
     * Goes on with a run already in the run log and still RUNNING (queued by a front door, or taken
     * over from a worker that died) from its last recorded attempt: the attempts so far are the
     * model's history, the next is numbered after them. Its time limit counts from now, so time spent
     * waiting in a queue is not held against it. Otherwise as {@link #solve(String, Task, RunListener, Supplier)}.
     */
    public Run resume(Run run, RunListener listener, Supplier<StopReason> whenStopped) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(whenStopped, "whenStopped");
        if (run.status().isFinal()) {
            throw new IllegalArgumentException("run " + run.id() + " has ended already (" + run.status() + ")");
        }
        RunListener events = safe(Objects.requireNonNull(listener, "listener"));
        return work(run, events, whenStopped, clock.instant().plus(config.runTimeout()), null);
    }

    /** @param workspace the session the attempts share, or null */
    private Run work(Run run, RunListener events, Supplier<StopReason> whenStopped, Instant deadline, SessionWorkspace workspace) {
        String runId = run.id();
        Task task = run.task();
        List<GenerationRequest.Turn> history = new ArrayList<>();
        for (Attempt done : run.attempts()) {
            history.add(new GenerationRequest.Turn(done.reply(), done.feedback()));
        }
        if (task.hasTests() && !Judge.judgesTests(task.language())) {
            // the front doors refuse such a task; one stored by an older version ends here, before any generation
            return end(run, RunStatus.ERROR, "tests can be judged for Python only, not " + task.language().id()
                    + ": give an expected output instead", events);
        }
        for (int n = run.attempts().size() + 1; n <= task.maxAttempts(); n++) {
            InFlight inFlight = new InFlight(n);
            try {
                if (Thread.currentThread().isInterrupted()) {
                    return stopped(cancelled(run, inFlight, events), whenStopped, events);
                }
                Duration left = Duration.between(clock.instant(), deadline);
                if (left.isNegative() || left.isZero()) {
                    return end(run, RunStatus.ERROR, "the run took longer than its limit of "
                            + Units.formatDuration(config.runTimeout()) + " (solve.runTimeout)", events);
                }
                events.on(new RunEvent.AttemptStarted(runId, clock.instant(), n, task.maxAttempts()));
                inFlight.started = System.nanoTime();

                long g0 = System.nanoTime();
                String reply;
                try {
                    reply = generate(new GenerationRequest(task, history));
                } catch (GeneratorException e) {
                    if (Thread.currentThread().isInterrupted()) {
                        return stopped(cancelled(run, inFlight, events), whenStopped, events);
                    }
                    String why = e.kind() == GeneratorException.Kind.AUTHENTICATION ? e.getMessage()
                            : "the generator failed: " + e.getMessage();
                    return end(run, RunStatus.ERROR, why, events);
                } catch (CallNotPermittedException e) {
                    return end(run, RunStatus.ERROR, "the LLM endpoint has been failing; not calling it for a while (circuit open)", events);
                }
                Duration generationTime = Duration.ofNanos(System.nanoTime() - g0);

                inFlight.reply = reply;
                Optional<String> code = extractor.extract(reply, task.language());
                Attempt attempt;
                if (code.isEmpty()) {
                    attempt = new Attempt(n, reply, "", null, Verdict.of(Verdict.Kind.INTERNAL_ERROR, "no code found in the reply"),
                            feedback.noCodeFound(), generationTime, Duration.ZERO, here());
                } else {
                    inFlight.code = code.get();
                    events.on(new RunEvent.CodeGenerated(runId, clock.instant(), n, code.get()));
                    long e0 = System.nanoTime();
                    SessionWorkspace.Step step = null;
                    Submission submission;
                    if (workspace != null) {
                        String prelude = workspace.prelude();
                        try {
                            step = workspace.run(code.get());
                        } catch (dev.codeagent.domain.session.SessionEndedException e) {
                            return end(run, RunStatus.ERROR, "the run's session ended: " + e.getMessage(), events);
                        }
                        submission = judge.prepareAfter(task, prelude, code.get());
                    } else {
                        submission = judge.prepare(task, code.get());
                    }
                    Execution execution;
                    try {
                        execution = executeCode.execute(submission.request(task.stdin(),
                                clamp(task.limits(), Duration.between(clock.instant(), deadline))));
                    } catch (ExecutionCancelledException e) {
                        return stopped(cancelled(run, inFlight, events), whenStopped, events);
                    } catch (OverloadedException e) {
                        return end(run, RunStatus.ERROR, "the sandbox is overloaded: " + e.getMessage(), events);
                    } catch (InvalidRequestException e) {
                        if (!"code".equals(e.field())) {
                            return end(run, RunStatus.ERROR, e.getMessage(), events);
                        }
                        // the model wrote something the executor refuses (too large): that is feedback, not a crash
                        execution = Execution.policyViolation(e.getMessage(), executeCode.sandbox().isolation());
                    }
                    events.on(new RunEvent.Executed(runId, clock.instant(), n, execution));
                    Verdict verdict = judge.judge(task, submission, execution);
                    String next = verdict.isAccepted() ? ""
                            : feedback.forFailure(code.get(), execution, verdict) + (step == null ? "" : SessionWorkspace.note(step));
                    attempt = new Attempt(n, reply, code.get(), execution, verdict, next, generationTime,
                            Duration.ofNanos(System.nanoTime() - e0), here());
                }
                inFlight.started = 0;
                runLog.attemptFinished(runId, attempt);
                run = run.withAttempt(attempt);
                events.on(new RunEvent.Judged(runId, clock.instant(), attempt));
                if (attempt.verdict().isAccepted()) {
                    return end(run, RunStatus.SOLVED, null, events);
                }
                if (attempt.execution() != null && attempt.execution().outcome() == Outcome.SANDBOX_ERROR) {
                    return end(run, RunStatus.ERROR, "the sandbox failed: " + attempt.execution().detail(), events);
                }
                history.add(new GenerationRequest.Turn(reply, attempt.feedback()));
            } catch (RuntimeException e) {
                // an interrupt is a cancel wherever it lands (waiting for an execution place, inside a retry, a
                // listener): the run is recorded as stopped, never left RUNNING for the next start to call interrupted
                if (!cancellation(e)) {
                    throw e;
                }
                return stopped(cancelled(run, inFlight, events), whenStopped, events);
            }
        }
        return end(run, RunStatus.FAILED, "no attempt was accepted in " + task.maxAttempts() + " attempts", events);
    }

    /** The attempt being worked on: what of it exists when the run is stopped. */
    private static final class InFlight {
        final int number;
        /** When it started (System.nanoTime), or 0 before it started and once it is recorded. */
        long started;
        String reply = "";
        String code = "";

        InFlight(int number) {
            this.number = number;
        }
    }

    /**
     * The run with the attempt in flight recorded as {@link Verdict.Kind#CANCELLED}, so that the run log shows what
     * was being tried when it stopped (its code, if generated); the run itself unchanged when none was in flight.
     */
    private Run cancelled(Run run, InFlight inFlight, RunListener events) {
        if (inFlight.started == 0) {
            return run;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - inFlight.started);
        inFlight.started = 0;
        Attempt attempt = new Attempt(inFlight.number, inFlight.reply, inFlight.code, null,
                Verdict.of(Verdict.Kind.CANCELLED, inFlight.code.isEmpty() ? "stopped while the code was being generated"
                        : "stopped while the code was running"), "", took, Duration.ZERO, here());
        try {
            runLog.attemptFinished(run.id(), attempt);
        } catch (RuntimeException e) {
            // the run's end is recorded next whatever happens here: an interrupted write must not lose that
            log.warn("run {}: could not record the cancelled attempt {}: {}", run.id(), attempt.number(), e.toString());
            return run;
        }
        events.on(new RunEvent.Judged(run.id(), clock.instant(), attempt));
        return run.withAttempt(attempt);
    }

    private static boolean cancellation(Throwable e) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ExecutionCancelledException || t instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    private String generate(GenerationRequest request) {
        return Retry.decorateSupplier(retry, CircuitBreaker.decorateSupplier(circuitBreaker, () -> generator.generate(request)))
                .get();
    }

    private Run stopped(Run run, Supplier<StopReason> whenStopped, RunListener events) {
        StopReason why = whenStopped.get();
        return why == null ? end(run, RunStatus.CANCELLED, StopReason.CANCELLED.reason(), events)
                : end(run, why.status(), why.reason(), events);
    }

    private Run end(Run run, RunStatus status, String reason, RunListener events) {
        Instant at = clock.instant();
        runLog.ended(run.id(), status, at, reason);
        events.on(new RunEvent.RunFinished(run.id(), at, status, reason));
        log.debug("run {} ended {} after {} attempts{}", run.id(), status, run.attempts().size(),
                reason == null ? "" : ": " + reason);
        return run.ended(status, at, reason);
    }

    /** The task's limits with the wall time cut to what is left of the run, so no execution outlives the deadline. */
    static ResourceLimits clamp(ResourceLimits limits, Duration left) {
        Duration floor = Duration.ofMillis(1);
        Duration wall = left.compareTo(floor) < 0 ? floor : left;
        return limits.wallTime().compareTo(wall) <= 0 ? limits : limits.withWallTime(wall);
    }

    private static boolean isTransient(Throwable t) {
        return t instanceof GeneratorException && ((GeneratorException) t).isTransient();
    }

    /** Exponential backoff from {@code first}, doubling, unless the endpoint said how long to wait. */
    private static IntervalBiFunction<Object> backoff(Duration first) {
        return (attempt, either) -> {
            Either<Throwable, Object> e = either;
            if (e != null && e.isLeft() && e.getLeft() instanceof GeneratorException) {
                Duration after = ((GeneratorException) e.getLeft()).retryAfter();
                if (after != null && !after.isNegative()) {
                    return Math.min(after.toMillis(), MAX_RETRY_AFTER.toMillis());
                }
            }
            long wait = first.toMillis() << Math.min(attempt - 1, 10);
            return Math.min(wait, MAX_RETRY_AFTER.toMillis());
        };
    }

    private static RunListener safe(RunListener listener) {
        return event -> {
            try {
                listener.on(event);
            } catch (RuntimeException e) {
                log.warn("a run listener failed on {}: {}", event.name(), e.toString());
            }
        };
    }

    /** The circuit breaker's state, for health and metrics. */
    public String generatorCircuitState() {
        return circuitBreaker.getState().name();
    }

    /** This process and its sandbox tier, found on first use (the sandbox is built by then). */
    private Placement here() {
        Placement p = here;
        if (p == null) {
            p = Placements.here(executeCode.sandbox().tier());
            here = p;
        }
        return p;
    }
}
