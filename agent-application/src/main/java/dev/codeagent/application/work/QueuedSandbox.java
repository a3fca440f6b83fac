package dev.codeagent.application.work;

import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.application.config.ConfigException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sandbox that is the workers behind an {@link ExecutionQueue}: each execution is queued, run by whichever
 * worker claims it in that worker's own sandbox, and its result handed back here. What isolated it is the
 * worker's tier, named in the result's {@link Execution#isolation()}; this object isolates nothing itself.
 *
 * <p>Many threads may wait at once (an evaluation keeps many executions queued so every worker stays busy); one
 * collector thread takes the results as the queue announces them. A waiting thread that is interrupted
 * withdraws its execution (a worker running it stops it) and gets {@link ExecutionCancelledException}.
 * Closing withdraws whatever is still waiting. A compiled language's program is queued as its source: the worker's
 * composition compiles it ({@link CompilingSandbox.CompiledElsewhere}).
 */
public final class QueuedSandbox implements CompilingSandbox.CompiledElsewhere {

    /** The tier this sandbox reports: the real one is each worker's. */
    public static final String TIER = "queue";

    /** Its isolation: none of its own (each result names its worker's). */
    public static final Isolation ISOLATION = Isolation.of(TIER, List.of(), List.of());

    private static final Logger log = LoggerFactory.getLogger(QueuedSandbox.class);
    private static final Duration LOOK_AGAIN = Duration.ofSeconds(2);

    private final ExecutionQueue queue;
    private final Map<String, CompletableFuture<Execution>> waiting = new ConcurrentHashMap<>();
    /** Executions whose callers gave up, withdrawn in one go by the collector (a caller's thread is interrupted). */
    private final Set<String> abandoned = ConcurrentHashMap.newKeySet();
    private final Thread collector;
    private volatile boolean closed;

    public QueuedSandbox(ExecutionQueue queue) {
        this.queue = Objects.requireNonNull(queue, "queue");
        this.collector = new Thread(this::collect, "codeagent-queued-results");
        collector.setDaemon(true);
        collector.start();
    }

    /**
     * A sandbox over the store's execution queue: {@code sandbox.kind: queue}.
     *
     * @param queue the execution queue the store in use shares with workers, if it keeps one
     * @throws ConfigException when the store keeps no queue other processes can work (only PostgreSQL does)
     */
    public static QueuedSandbox over(java.util.Optional<ExecutionQueue> queue, String storeKind) {
        if (queue.isPresent()) {
            return new QueuedSandbox(queue.get());
        }
        throw noSharedQueue(storeKind);
    }

    /** The one-line refusal of {@code sandbox.kind: queue} over a store that only this process uses. */
    static ConfigException noSharedQueue(String storeKind) {
        return new ConfigException("sandbox.kind: queue runs programs on workers, which needs a store they share; store.kind '"
                + storeKind + "' keeps no queue for other processes; set store.kind: postgres");
    }

    @Override
    public String tier() {
        return TIER;
    }

    /** Every language: a worker that cannot run one answers with an execution saying so. */
    @Override
    public Set<Language> languages() {
        return EnumSet.allOf(Language.class);
    }

    @Override
    public Isolation isolation() {
        return ISOLATION;
    }

    /**
     * Queues the request and waits for a worker's result, however long the queue takes.
     *
     * @throws ExecutionCancelledException when the calling thread is interrupted (the execution is withdrawn) or this
     *     sandbox is closed
     * @throws IllegalStateException when the queue refuses the request (the store is unreachable)
     */
    @Override
    public Execution execute(ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        if (closed) {
            throw new ExecutionCancelledException("the queued sandbox is closed");
        }
        String id = UUID.randomUUID().toString();
        CompletableFuture<Execution> result = new CompletableFuture<>();
        waiting.put(id, result);
        try {
            queue.submit(id, request);
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon(id);
            throw new ExecutionCancelledException("withdrawn from the queue: the caller was interrupted");
        } catch (ExecutionException e) {
            abandon(id);
            throw new ExecutionCancelledException(e.getCause().getMessage());
        } catch (RuntimeException e) {
            abandon(id);
            throw e;
        } finally {
            waiting.remove(id);
        }
    }

    /**
     * Leaves the withdrawal to the collector: an interrupted caller (an evaluation stopping dozens at once) must not
     * queue for the store's connections, which an interrupted thread may be refused.
     */
    private void abandon(String id) {
        abandoned.add(id);
        collector.interrupt();
    }

    /** How many executions this sandbox is waiting for. */
    public int waiting() {
        return waiting.size();
    }

    /** Withdraws what callers abandoned; what fails stays for the next round. */
    private void withdrawAbandoned() {
        List<String> ids = List.copyOf(abandoned);
        if (ids.isEmpty()) {
            return;
        }
        try {
            queue.withdraw(ids);
            ids.forEach(abandoned::remove);
        } catch (RuntimeException e) {
            // tried again on the next round; if this process dies first its heartbeat stops and the queue clears them
            log.warn("could not withdraw {} queued executions: {}", ids.size(), e.getMessage());
        }
    }

    private void collect() {
        while (!closed) {
            try {
                withdrawAbandoned();
                queue.awaitResults(LOOK_AGAIN);
                if (waiting.isEmpty()) {
                    continue;
                }
                for (Map.Entry<String, Execution> r : queue.takeResults().entrySet()) {
                    CompletableFuture<Execution> f = waiting.get(r.getKey());
                    if (f != null) {
                        f.complete(r.getValue());
                    }
                }
            } catch (InterruptedException e) {
                // an abandoned execution to withdraw, or closing: the loop's condition tells which
                continue;
            } catch (RuntimeException e) {
                // the store is away: its own calls retry for a while; keep looking until closed
                log.warn("could not take queued results: {}", e.getMessage());
                try {
                    Thread.sleep(LOOK_AGAIN.toMillis());
                } catch (InterruptedException ie) {
                    // as above
                }
            }
        }
    }

    /** Withdraws whatever is still queued or abandoned, then fails the callers still waiting. */
    @Override
    public void close() {
        closed = true;
        collector.interrupt();
        // closing is often what a stop (Ctrl-C) does on an interrupted thread: the withdrawal must still reach the store
        boolean interrupted = Thread.interrupted();
        try {
            collector.join(LOOK_AGAIN.toMillis());
            abandoned.addAll(waiting.keySet());
            withdrawAbandoned();
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        waiting.values().forEach(f -> f.completeExceptionally(new ExecutionCancelledException("the queued sandbox was closed")));
    }
}
