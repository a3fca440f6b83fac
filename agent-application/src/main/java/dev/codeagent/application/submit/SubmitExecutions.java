package dev.codeagent.application.submit;

import dev.codeagent.application.eval.JudgeCode;
import dev.codeagent.application.eval.JudgeRequest;
import dev.codeagent.application.eval.Judgement;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.FairPlaces;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.solving.Verdict;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executions submitted to be collected later (asynchronous requests, batches): each is accepted at once under an id,
 * waits for its owner's turn at the same {@link FairPlaces} synchronous requests use (so a batch of 200 from one key
 * takes turns with the other keys' requests instead of going before them), runs, and its result is kept in the
 * {@link ExecutionResults} for {@code keep} after it ended. A submitted judgement ({@link Submission#judgement}) is one of
 * them: {@link JudgeCode} runs it at its place, and its verdict is kept beside the execution that decided it.
 *
 * <p>At most {@code maxPending} submissions are accepted and not yet ended, all owners together; a batch that would go
 * past it is refused whole, before any of it is accepted. A submission is its owner's: another caller finds none
 * (an operator finds every one).
 */
public final class SubmitExecutions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SubmitExecutions.class);

    private final ExecuteCode executeCode;
    private final FairPlaces places;
    private final ExecutionResults results;
    private final int maxPending;
    private final Duration keep;
    private final Clock clock;
    private final Consumer<Execution> onEnded;
    private final AtomicInteger pending = new AtomicInteger();
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    private final ExecutorService runners;

    /**
     * @param onEnded told of every execution that ended (the metrics)
     */
    public SubmitExecutions(ExecuteCode executeCode, FairPlaces places, ExecutionResults results, int maxPending, Duration keep,
            Clock clock, Consumer<Execution> onEnded) {
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
        this.places = Objects.requireNonNull(places, "places");
        this.results = Objects.requireNonNull(results, "results");
        this.maxPending = maxPending;
        this.keep = keep;
        this.clock = clock;
        this.onEnded = onEnded;
        // one thread per place at most runs at once (the places bound them); idle ones end
        this.runners = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "submitted-execution");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * One execution to submit, or one judgement (given code judged: its runs and its verdict, kept as a submission whose
     * id starts {@value StoredExecution#JUDGEMENT_PREFIX}).
     *
     * @param request the execution's request; a judgement's runs are its {@code judgement}'s
     * @param judgement the code to judge and who judges it, or null for a plain execution
     * @param whenDone told of the submission once it is done and recorded (a callback to deliver), or null
     */
    public record Submission(ExecutionRequest request, Judging judgement, Consumer<StoredExecution> whenDone) {
        public Submission {
            Objects.requireNonNull(request, "request");
        }

        public Submission(ExecutionRequest request, Consumer<StoredExecution> whenDone) {
            this(request, null, whenDone);
        }

        /** A judgement to submit ({@link JudgeCode#validate} has passed it). */
        public static Submission judgement(JudgeCode judgeCode, JudgeRequest request, Consumer<StoredExecution> whenDone) {
            return new Submission(request.execution(), new Judging(judgeCode, request), whenDone);
        }
    }

    /** A judgement's code and the use case that judges it. */
    public record Judging(JudgeCode judgeCode, JudgeRequest request) {
        public Judging {
            Objects.requireNonNull(judgeCode, "judgeCode");
            Objects.requireNonNull(request, "request");
        }
    }

    /** As {@link #submitAll}, for requests nobody is told of. */
    public List<String> submit(Caller caller, List<ExecutionRequest> requests) {
        return submitAll(caller, requests.stream().map(r -> new Submission(r, null)).toList());
    }

    /**
     * Accepts the submissions (their requests validated by the caller: {@link ExecuteCode#validate}) and returns their
     * ids, in order.
     *
     * @throws OverloadedException when they would take the submissions accepted and not ended past {@code maxPending}
     */
    public List<String> submitAll(Caller caller, List<Submission> submissions) {
        Objects.requireNonNull(caller, "caller");
        int n = submissions.size();
        int before = pending.getAndAdd(n);
        if (before + n > maxPending) {
            pending.addAndGet(-n);
            throw new OverloadedException("too many submissions are waiting (" + before + " of " + maxPending
                    + ", http.maxPendingSubmissions); collect the results and submit again shortly", Duration.ofSeconds(5));
        }
        results.forgetEndedBefore(clock.instant().minus(keep));
        List<String> ids = new ArrayList<>(n);
        String owner = caller.owner();
        String turn = owner == null ? "" : owner;
        for (Submission submission : submissions) {
            String prefix = submission.judgement() == null ? "ex_" : StoredExecution.JUDGEMENT_PREFIX;
            StoredExecution accepted = new StoredExecution(prefix + SolveTask.newRunId(), owner, StoredExecution.Status.QUEUED,
                    clock.instant(), null, null);
            try {
                results.save(accepted);
            } catch (RuntimeException e) {
                pending.addAndGet(-(n - ids.size()));
                throw e;
            }
            ids.add(accepted.id());
            CompletableFuture<FairPlaces.Place> place = places.later(turn);
            waiting.add(place);
            place.thenAcceptAsync(p -> run(accepted, submission, p), runners).whenComplete((v, e) -> waiting.remove(place));
        }
        return ids;
    }

    private void run(StoredExecution accepted, Submission submission, FairPlaces.Place place) {
        StoredExecution done = null;
        try (place) {
            results.save(accepted.running());
            Execution e;
            Verdict verdict = null;
            try {
                if (submission.judgement() == null) {
                    e = executeCode.executeEach(submission.request());
                } else {
                    Judgement judged = submission.judgement().judgeCode().judge(submission.judgement().request());
                    e = judged.execution();
                    verdict = judged.verdict();
                }
            } catch (ExecutionCancelledException cancelled) {
                e = Execution.sandboxError("the server stopped before the execution ended: " + cancelled.getMessage(),
                        Duration.ZERO, executeCode.sandbox().isolation());
            } catch (RuntimeException other) {
                e = Execution.sandboxError("the execution could not run: " + other.getMessage(), Duration.ZERO,
                        executeCode.sandbox().isolation());
            }
            if (submission.judgement() != null && verdict == null) {
                // the judge never saw it run: the sandbox's failure, as the judge words one (never a verdict on the code)
                verdict = Verdict.of(Verdict.Kind.INTERNAL_ERROR, e.detail());
            }
            done = accepted.done(e, verdict, clock.instant());
            results.save(done);
            onEnded.accept(e);
        } catch (RuntimeException e) {
            log.warn("submission {} could not be recorded: {}", accepted.id(), e.toString());
        } finally {
            pending.decrementAndGet();
        }
        if (done != null && submission.whenDone() != null) {
            try {
                submission.whenDone().accept(done);
            } catch (RuntimeException e) {
                log.warn("submission {}: telling of its end failed: {}", done.id(), e.toString());
            }
        }
    }

    /** The submission, when the caller may see it (its own, or any for an operator) and it is not past its time. */
    public Optional<StoredExecution> find(Caller caller, String id) {
        java.time.Instant oldest = clock.instant().minus(keep);
        return results.find(id).filter(s -> caller.operator() || (s.owner() != null && s.owner().equals(caller.owner())))
                .filter(s -> s.finishedAt() == null || !s.finishedAt().isBefore(oldest));
    }

    /** Submissions accepted and not yet ended. */
    public int pending() {
        return pending.get();
    }

    /** Stops: waiting submissions are not run, running ones are interrupted (they end as the sandbox's error). */
    @Override
    public void close() {
        waiting.forEach(f -> f.cancel(false));
        runners.shutdownNow();
        try {
            runners.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
