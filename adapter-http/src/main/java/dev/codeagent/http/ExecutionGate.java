package dev.codeagent.http;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.FairPlaces;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.run.Caller;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.http.ProblemException.Type;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the execution endpoints (ours and Piston's) run code: a fixed number of places shared fairly among API keys
 * ({@link FairPlaces}: a place that comes free goes to the keys in turn), each execution's thread known so that a
 * stopping server can wait for them and then cancel them.
 *
 * <p>A full house is met by waiting, as Piston queues jobs: a request waits in a bounded queue ({@code
 * http.maxQueuedExecutions}) for at most {@code http.executionQueueWait}, so that a client fanning out more requests
 * than there are places gets every answer without a retry loop of its own; 503 with Retry-After only when the queue is
 * full or the wait ran out ({@code http.maxQueuedExecutions: 0} refuses at once).
 */
final class ExecutionGate {

    /** Whose turn a request of a caller without an owner (auth off: everyone is one caller) takes. */
    private static final String NO_OWNER = "";

    private final ExecuteCode executeCode;
    private final Set<dev.codeagent.domain.execution.Language> languages;
    private final ApiMetrics metrics;
    private final FairPlaces places;
    private final dev.codeagent.application.submit.SubmitExecutions submissions;
    private final Set<Thread> inFlight = ConcurrentHashMap.newKeySet();

    ExecutionGate(ExecuteCode executeCode, Set<dev.codeagent.domain.execution.Language> languages, FairPlaces places,
            dev.codeagent.application.submit.SubmitExecutions submissions, ApiMetrics metrics) {
        this.submissions = submissions;
        this.executeCode = executeCode;
        this.languages = Set.copyOf(languages);
        this.metrics = metrics;
        this.places = places;
    }

    /** The owner whose turn a caller's request takes. */
    static String owner(Caller caller) {
        return caller == null || caller.owner() == null ? NO_OWNER : caller.owner();
    }

    /** Checks what can be checked before running. @throws ProblemException 400 naming the field */
    void validate(ExecutionRequest request) {
        try {
            executeCode.validate(request);
        } catch (InvalidRequestException e) {
            throw invalid(e);
        }
    }

    /** Runs one execution of {@code caller}; {@code via} names the endpoint in the metrics. */
    Execution run(ExecutionRequest request, String via, Caller caller) {
        validate(request);
        return hold(caller, () -> {
            Execution e = executeCode.execute(request);
            metrics.execution(e, via);
            return e;
        });
    }

    /**
     * Runs {@code body} holding one execution place of {@code caller}'s turn, counted in flight (a queued request is
     * in flight too: a stopping server waits for it and then cancels it): one execution, or a live session's whole
     * life (its compile stage and its run). The executor's refusals inside become the problems {@link #run} answers
     * with.
     *
     * @throws ProblemException 503 when no place was had or when the server stopped it, 400 for a request the
     *     executor refused
     */
    <T> T hold(Caller caller, java.util.function.Supplier<T> body) {
        if (places.maxWaiting() == 0 && executeCode.running() >= executeCode.maxConcurrent()) {
            // refusing at once was asked for: the sandbox's own places, shared with agent runs, are all taken too
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, "every execution place is busy (" + executeCode.running() + " of "
                    + executeCode.maxConcurrent() + " running); try again shortly", Duration.ofSeconds(1));
        }
        Thread self = Thread.currentThread();
        inFlight.add(self);
        try (FairPlaces.Place place = places.acquire(owner(caller))) {
            return body.get();
        } catch (OverloadedException e) {
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), e.retryAfter() == null ? Duration.ofSeconds(1)
                    : e.retryAfter());
        } catch (InvalidRequestException e) {
            throw invalid(e);
        } catch (ExecutionCancelledException e) {
            throw shuttingDown();
        } finally {
            inFlight.remove(self);
            // an interrupt meant for this execution must not reach the next request on this pool thread
            Thread.interrupted();
        }
    }

    /**
     * Starts one program live (see {@link ExecuteCode#start}); call it inside {@link #hold}, which holds its place.
     *
     * @throws UnsupportedOperationException when the sandbox cannot run a program live
     */
    dev.codeagent.domain.execution.LiveExecution start(ExecutionRequest request,
            dev.codeagent.domain.execution.LiveExecution.Listener listener) {
        return executeCode.start(request, listener);
    }

    /** Executions (and live sessions) of this gate's metrics, by endpoint. */
    void counted(Execution e, String via) {
        metrics.execution(e, via);
    }

    private ProblemException overloaded(String message) {
        metrics.rejected("overloaded");
        return ProblemException.retryLater(Type.OVERLOADED, message, Duration.ofSeconds(1));
    }

    private static ProblemException shuttingDown() {
        return ProblemException.retryLater(Type.SHUTTING_DOWN, "the server is shutting down; the execution was stopped",
                Duration.ofSeconds(5));
    }

    private ProblemException invalid(InvalidRequestException e) {
        if ("language".equals(e.field())) {
            return new ProblemException(Type.UNSUPPORTED_LANGUAGE, "language: " + e.getMessage(),
                    List.of(new ProblemException.FieldError("language", e.getMessage())), null,
                    Map.of("supported", languages.stream().map(l -> l.id()).sorted().toList()));
        }
        return ProblemException.invalid(e.field() == null ? "body" : e.field(), e.getMessage());
    }

    /** Executions running or queued now. */
    int inFlight() {
        return inFlight.size();
    }

    /** Cancels every execution still running or queued (each answers 503, shutting down). */
    void cancelAll() {
        inFlight.forEach(Thread::interrupt);
    }

    void registerGauges() {
        metrics.gauge("codeagent.http.executions.inflight", "Executions the API is running now", places::inUse);
        metrics.gauge("codeagent.http.executions.max", "Executions the API runs at once before queueing",
                places::places);
        metrics.gauge("codeagent.http.executions.queued", "Executions waiting for a place (requests held open)",
                places::waiting);
        metrics.gauge("codeagent.http.submissions.pending", "Submitted executions (asynchronous, batched) not yet ended",
                submissions::pending);
    }
}
