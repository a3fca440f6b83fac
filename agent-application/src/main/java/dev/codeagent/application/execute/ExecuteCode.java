package dev.codeagent.application.execute;

import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.UnsupportedLanguageException;
import dev.codeagent.domain.policy.CodePolicy;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ResilienceConfig;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one program safely: checks its size and the code policy, waits for a free execution place,
 * runs it in the sandbox, and runs it again (up to twice more) when the sandbox itself failed —
 * never when the program failed.
 */
public final class ExecuteCode {

    private static final Logger log = LoggerFactory.getLogger(ExecuteCode.class);

    /** How long {@link #executeEach} waits before asking again for a place. */
    private static final Duration OVERLOAD_PAUSE = Duration.ofMillis(200);

    private final Sandbox sandbox;
    private final CodePolicy policy;
    private final long maxSourceBytes;
    private final Bulkhead bulkhead;
    private final Retry retry;
    private final ResourceLimits compileLimits;

    /**
     * The executor a composition makes: over its sandbox (which the composition has made compile compiled languages:
     * {@code CompilingSandbox}), with the config's policy, size, places and compile limits.
     */
    public ExecuteCode(Sandbox sandbox, CodeAgentConfig config, RetryRegistry retries) {
        this(sandbox, config, config.sandbox().maxConcurrent(), retries);
    }

    /**
     * As configured, but with {@code places} executions at once (an executor over the workers' queue).
     *
     * @param retries whose default configuration says how often and how far apart a failed sandbox is tried again
     */
    public ExecuteCode(Sandbox sandbox, CodeAgentConfig config, int places, RetryRegistry retries) {
        this(sandbox, config.policy().toPolicy(), config.sandbox().maxSourceBytes().bytes(), places,
                config.sandbox().maxQueueWait(), config.limits().compileLimits(), retries.getDefaultConfig());
    }

    public ExecuteCode(Sandbox sandbox, CodePolicy policy, long maxSourceBytes, int maxConcurrent, Duration maxQueueWait) {
        this(sandbox, policy, maxSourceBytes, maxConcurrent, maxQueueWait, ResourceLimits.compileDefaults());
    }

    /**
     * @param compileLimits a compiled language's compile stage limits for a request that names none (limits.compile*)
     */
    public ExecuteCode(Sandbox sandbox, CodePolicy policy, long maxSourceBytes, int maxConcurrent, Duration maxQueueWait,
            ResourceLimits compileLimits) {
        this(sandbox, policy, maxSourceBytes, maxConcurrent, maxQueueWait, compileLimits,
                ResilienceConfig.defaults().retries().getDefaultConfig());
    }

    private ExecuteCode(Sandbox sandbox, CodePolicy policy, long maxSourceBytes, int maxConcurrent, Duration maxQueueWait,
            ResourceLimits compileLimits, RetryConfig retrySettings) {
        this.compileLimits = Objects.requireNonNull(compileLimits, "compileLimits");
        this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
        this.policy = Objects.requireNonNull(policy, "policy");
        this.maxSourceBytes = maxSourceBytes;
        this.bulkhead = Bulkhead.of("sandbox-" + sandbox.tier(), BulkheadConfig.custom()
                .maxConcurrentCalls(maxConcurrent)
                .maxWaitDuration(maxQueueWait)
                .build());
        this.retry = Retry.of("sandbox-" + sandbox.tier(), RetryConfig.<Execution>from(retrySettings)
                .retryOnResult(e -> e.outcome() == Outcome.SANDBOX_ERROR)
                // an exception (cancellation, bad request) is never the sandbox hiccuping: do not run again
                .retryOnException(e -> false)
                .failAfterMaxAttempts(false)
                .build());
        retry.getEventPublisher().onRetry(e -> log.warn("sandbox failed, trying again ({}): {}",
                e.getNumberOfRetryAttempts(), e.getLastThrowable() == null ? "sandbox error" : e.getLastThrowable().getMessage()));
    }

    /**
     * Runs the request.
     *
     * @return the execution; {@link Outcome#POLICY_VIOLATION} when the policy refused the code
     * @throws InvalidRequestException when the source is too large or its language is not supported
     * @throws OverloadedException when no execution place came free in time
     * @throws dev.codeagent.domain.execution.ExecutionCancelledException when the calling thread was interrupted
     */
    public Execution execute(ExecutionRequest request) {
        validate(request);
        ExecutionRequest withCompileLimits = withCompileLimits(request);
        var violation = policy.check(request.program());
        if (violation.isPresent()) {
            return Execution.policyViolation(violation.get(), sandbox.isolation());
        }
        try {
            return bulkhead.executeSupplier(() -> retry.executeSupplier(() -> sandbox.execute(withCompileLimits)));
        } catch (BulkheadFullException e) {
            throw new OverloadedException("all " + bulkhead.getBulkheadConfig().getMaxConcurrentCalls()
                    + " execution places are busy", Duration.ofSeconds(1));
        }
    }

    /**
     * Runs the request for a caller that needs an execution back for every request it holds (an evaluation's sample,
     * a worker's queued execution): it waits for a place rather than being refused when all are busy, gets code too
     * large for this executor as a policy violation (the code's fault, like a policy refusal), and a sandbox that
     * throws as a {@link Outcome#SANDBOX_ERROR} execution.
     *
     * @throws InvalidRequestException for a field other than the code (the request cannot run here at all)
     * @throws dev.codeagent.domain.execution.ExecutionCancelledException when the calling thread is interrupted
     */
    public Execution executeEach(ExecutionRequest request) {
        while (true) {
            try {
                return execute(request);
            } catch (InvalidRequestException e) {
                if (!"code".equals(e.field())) {
                    throw e;
                }
                return Execution.policyViolation(e.getMessage(), sandbox.isolation());
            } catch (OverloadedException e) {
                // only when something else shares this executor: wait for a place
                try {
                    Thread.sleep(OVERLOAD_PAUSE.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new dev.codeagent.domain.execution.ExecutionCancelledException("cancelled while waiting for a place");
                }
            } catch (dev.codeagent.domain.execution.ExecutionCancelledException e) {
                throw e;
            } catch (RuntimeException e) {
                log.warn("the sandbox failed: {}", e.toString());
                return Execution.sandboxError("the sandbox failed: " + e.getMessage(), Duration.ZERO, sandbox.isolation());
            }
        }
    }

    /**
     * Runs the request's program once per input (as its stdin), lazily, each run as {@link #executeEach} runs one: a
     * caller that judges run by run stops when it has its answer. A compiled language's program is compiled once,
     * before the first run, when the sandbox compiles ({@link CompilingSandbox}); otherwise each input is a request of
     * its own.
     */
    public Iterator<Execution> executeEach(ExecutionRequest request, List<String> inputs) {
        if (sandbox instanceof CompilingSandbox compiling) {
            return compiling.eachInput(request, inputs, this::executeEach);
        }
        return inputs.stream().map(input -> executeEach(new ExecutionRequest(request.program(), input, request.args(),
                request.limits(), request.judging(), request.compileLimits()))).iterator();
    }

    /**
     * Starts a program live ({@link Sandbox#start}) under the same checks and places as {@link #execute}: the request is
     * validated and checked by the code policy, and the execution holds one of the places until its
     * {@link LiveExecution#await()} returns.
     *
     * @throws InvalidRequestException for a request {@link #validate} refuses, or one the code policy refuses ({@code code})
     * @throws OverloadedException when no place frees up within the queue wait
     * @throws UnsupportedOperationException when the sandbox cannot run a program live
     */
    public LiveExecution start(ExecutionRequest request, LiveExecution.Listener listener) {
        validate(request);
        var violation = policy.check(request.program());
        if (violation.isPresent()) {
            throw new InvalidRequestException("code", "refused by the code policy: " + violation.get());
        }
        ExecutionRequest withCompileLimits = withCompileLimits(request);
        if (!bulkhead.tryAcquirePermission()) {
            throw new OverloadedException("all " + bulkhead.getBulkheadConfig().getMaxConcurrentCalls()
                    + " execution places are busy", Duration.ofSeconds(1));
        }
        LiveExecution live;
        try {
            live = sandbox.start(withCompileLimits, listener);
        } catch (RuntimeException e) {
            bulkhead.releasePermission();
            throw e;
        }
        return new LiveExecution() {
            private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

            @Override
            public void write(String text) {
                live.write(text);
            }

            @Override
            public void closeStdin() {
                live.closeStdin();
            }

            @Override
            public boolean signal(int signal) {
                return live.signal(signal);
            }

            @Override
            public void cancel() {
                live.cancel();
            }

            @Override
            public Execution await() {
                try {
                    return live.await();
                } finally {
                    if (released.compareAndSet(false, true)) {
                        bulkhead.releasePermission();
                    }
                }
            }
        };
    }

    /** The request with the configured compile limits where it names none. */
    private ExecutionRequest withCompileLimits(ExecutionRequest request) {
        return request.compileLimits() == null ? request.withCompileLimits(compileLimits) : request;
    }

    /**
     * Checks what can be checked without running: size, language.
     *
     * @throws InvalidRequestException naming the problem
     */
    public void validate(ExecutionRequest request) {
        long size = request.program().sizeBytes();
        if (size > maxSourceBytes) {
            throw new InvalidRequestException("code", "the program is " + size + " bytes; the limit is " + maxSourceBytes
                    + " (sandbox.maxSourceBytes)");
        }
        if (!sandbox.languages().contains(request.program().language())) {
            var e = new UnsupportedLanguageException(request.program().language(), sandbox.tier(), sandbox.languages());
            throw new InvalidRequestException("language", e.getMessage());
        }
    }

    public Sandbox sandbox() {
        return sandbox;
    }

    /** Executions running now. */
    public int running() {
        return bulkhead.getBulkheadConfig().getMaxConcurrentCalls() - bulkhead.getMetrics().getAvailableConcurrentCalls();
    }

    public int maxConcurrent() {
        return bulkhead.getBulkheadConfig().getMaxConcurrentCalls();
    }
}
