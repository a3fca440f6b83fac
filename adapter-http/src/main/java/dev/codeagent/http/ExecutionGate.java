package dev.codeagent.http;

import dev.codeagent.application.config.Units;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.http.ProblemException.Type;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the execution endpoints (ours and Piston's) run code: a fixed number of places, each
 * execution's thread known so that a stopping server can wait for them and then cancel them.
 *
 * <p>Two ways to meet a full house. {@link Admission#REFUSE} is a quick 503 with Retry-After (our own
 * API, whose clients are told to retry). {@link Admission#QUEUE} waits in a bounded, first-come queue
 * for at most the configured time, as Piston queues jobs, because Piston clients have no retry and
 * read {@code run} from every answer; 503 only when the queue is full or the wait ran out.
 */
final class ExecutionGate {

    /** What an execution does when every place is taken. */
    enum Admission { REFUSE, QUEUE }

    private final ExecuteCode executeCode;
    private final Set<dev.codeagent.domain.execution.Language> languages;
    private final ApiMetrics metrics;
    private final Semaphore places;
    private final int maxExecutions;
    private final int maxQueued;
    private final Duration queueWait;
    private final AtomicInteger queued = new AtomicInteger();
    private final Set<Thread> inFlight = ConcurrentHashMap.newKeySet();

    ExecutionGate(ExecuteCode executeCode, Set<dev.codeagent.domain.execution.Language> languages, int maxExecutions, int maxQueued,
            Duration queueWait, ApiMetrics metrics) {
        this.executeCode = executeCode;
        this.languages = Set.copyOf(languages);
        this.metrics = metrics;
        this.maxExecutions = maxExecutions;
        this.maxQueued = maxQueued;
        this.queueWait = queueWait;
        // fair: a queued request is served before one that arrives later
        this.places = new Semaphore(maxExecutions, true);
    }

    /** Runs one execution; {@code via} names the endpoint in the metrics. */
    Execution run(ExecutionRequest request, String via, Admission admission) {
        try {
            executeCode.validate(request);
        } catch (InvalidRequestException e) {
            throw invalid(e);
        }
        return hold(admission, () -> {
            Execution e = executeCode.execute(request);
            metrics.execution(e, via);
            return e;
        });
    }

    /**
     * Runs {@code body} holding one execution place, counted in flight (a queued request is in flight too: a stopping
     * server waits for it and then cancels it): one execution, or a live session's whole life (its compile stage and
     * its run). The executor's refusals inside become the problems {@link #run} answers with.
     *
     * @throws ProblemException 503 when no place was had or when the server stopped it, 400 for a request the
     *     executor refused
     */
    <T> T hold(Admission admission, java.util.function.Supplier<T> body) {
        Thread self = Thread.currentThread();
        inFlight.add(self);
        try {
            admit(admission);
            try {
                return body.get();
            } finally {
                places.release();
            }
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

    /** Executions (and live sessions) of this gate's metrics, by endpoint. */
    void counted(Execution e, String via) {
        metrics.execution(e, via);
    }

    /** Takes a place, waiting in the queue when allowed to. @throws ProblemException 503 when none is had */
    private void admit(Admission admission) {
        // the sandbox's own places are shared with agent runs: when they are all taken a refused request says so now
        boolean sandboxFull = executeCode.running() >= executeCode.maxConcurrent();
        if (!sandboxFull && places.tryAcquire()) {
            return;
        }
        if (admission == Admission.REFUSE || maxQueued == 0) {
            throw overloaded("every execution place is busy (" + executeCode.running() + " of " + executeCode.maxConcurrent()
                    + " running); try again shortly");
        }
        if (queued.incrementAndGet() > maxQueued) {
            queued.decrementAndGet();
            throw overloaded("the execution queue is full (" + maxQueued + " waiting, http.maxQueuedExecutions); try again shortly");
        }
        try {
            if (!places.tryAcquire(queueWait.toNanos(), TimeUnit.NANOSECONDS)) {
                throw overloaded("no execution place came free within " + Units.formatDuration(queueWait)
                        + " (http.executionQueueWait); try again shortly");
            }
        } catch (InterruptedException e) {
            throw shuttingDown();
        } finally {
            queued.decrementAndGet();
        }
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
        metrics.gauge("codeagent.http.executions.inflight", "Executions the API is running now",
                () -> maxExecutions - places.availablePermits());
        metrics.gauge("codeagent.http.executions.max", "Executions the API runs at once before queueing or refusing",
                () -> maxExecutions);
        metrics.gauge("codeagent.http.executions.queued", "Piston executions waiting for a place", queued::get);
    }
}
