package dev.codeagent.http;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.http.ProblemException.Type;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the execution endpoints (ours and Piston's) run code: behind a fail-fast bulkhead, so overload
 * is a quick 503 and never a queue, with each execution's thread known so that a stopping server can
 * wait for them and then cancel them.
 */
final class ExecutionGate {

    private final ExecuteCode executeCode;
    private final ApiMetrics metrics;
    private final Bulkhead bulkhead;
    private final int maxExecutions;
    private final Set<Thread> inFlight = ConcurrentHashMap.newKeySet();

    ExecutionGate(ExecuteCode executeCode, int maxExecutions, ApiMetrics metrics) {
        this.executeCode = executeCode;
        this.metrics = metrics;
        this.maxExecutions = maxExecutions;
        this.bulkhead = Bulkhead.of("http-executions", BulkheadConfig.custom()
                .maxConcurrentCalls(maxExecutions)
                .maxWaitDuration(Duration.ZERO)
                .build());
    }

    /** Runs one execution; {@code via} names the endpoint in the metrics. */
    Execution run(ExecutionRequest request, String via) {
        try {
            executeCode.validate(request);
        } catch (InvalidRequestException e) {
            throw invalid(e);
        }
        // the sandbox's own places are shared with agent runs and would queue: when they are all taken, say so now
        if (executeCode.running() >= executeCode.maxConcurrent() || !bulkhead.tryAcquirePermission()) {
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, "every execution place is busy (" + executeCode.running() + " of "
                    + executeCode.maxConcurrent() + " running); try again shortly", Duration.ofSeconds(1));
        }
        Thread self = Thread.currentThread();
        inFlight.add(self);
        try {
            Execution e = executeCode.execute(request);
            metrics.execution(e, via);
            return e;
        } catch (OverloadedException e) {
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), e.retryAfter() == null ? Duration.ofSeconds(1)
                    : e.retryAfter());
        } catch (InvalidRequestException e) {
            throw invalid(e);
        } catch (ExecutionCancelledException e) {
            throw ProblemException.retryLater(Type.SHUTTING_DOWN, "the server is shutting down; the execution was stopped",
                    Duration.ofSeconds(5));
        } finally {
            inFlight.remove(self);
            bulkhead.onComplete();
            // an interrupt meant for this execution must not reach the next request on this pool thread
            Thread.interrupted();
        }
    }

    private ProblemException invalid(InvalidRequestException e) {
        if ("language".equals(e.field())) {
            return new ProblemException(Type.UNSUPPORTED_LANGUAGE, "language: " + e.getMessage(),
                    List.of(new ProblemException.FieldError("language", e.getMessage())), null,
                    Map.of("supported", executeCode.sandbox().languages().stream().map(l -> l.id()).sorted().toList()));
        }
        return ProblemException.invalid(e.field() == null ? "body" : e.field(), e.getMessage());
    }

    /** Executions running now. */
    int inFlight() {
        return inFlight.size();
    }

    /** Cancels every execution still running (each answers 503, shutting down). */
    void cancelAll() {
        inFlight.forEach(Thread::interrupt);
    }

    void registerGauges() {
        metrics.gauge("codeagent.http.executions.inflight", "Executions the API is running now",
                () -> maxExecutions - bulkhead.getMetrics().getAvailableConcurrentCalls());
        metrics.gauge("codeagent.http.executions.max", "Executions the API runs at once before refusing",
                () -> maxExecutions);
    }
}
