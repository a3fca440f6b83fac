package dev.codeagent.http;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.RunLog;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness: whether the configured sandbox really runs a tiny program and the run store answers.
 * The result is cached; a stale one is refreshed in the background so a probe never waits on it
 * (except the very first, which waits a little for the first check).
 */
final class HealthCheck implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthCheck.class);
    private static final Duration MAX_AGE = Duration.ofSeconds(30);

    /** The last check. */
    record Status(boolean sandboxOk, String sandboxDetail, long probeMillis, boolean storeOk, String storeDetail, Instant checkedAt) {
        boolean ready() {
            return sandboxOk && storeOk;
        }
    }

    private final ExecuteCode executeCode;
    private final Supplier<RunLog> runLog;
    private final Sandbox sandbox;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "health-check");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean checking = new AtomicBoolean();
    /** The longest a probe may take: its own wall limit is 10 s, the rest is room for a busy queue. */
    static final Duration PROBE_WAIT = Duration.ofSeconds(20);
    private volatile Status last;

    /** @param sandbox the composition's sandbox, the one {@code executeCode} runs in: what the probe may ask of it */
    HealthCheck(ExecuteCode executeCode, Sandbox sandbox, Supplier<RunLog> runLog) {
        this.executeCode = executeCode;
        this.sandbox = sandbox;
        this.runLog = runLog;
    }

    /** Starts a check in the background if none is running and the last is missing or stale. */
    void refreshIfStale() {
        Status s = last;
        if ((s == null || s.checkedAt().plus(MAX_AGE).isBefore(Instant.now())) && checking.compareAndSet(false, true)) {
            worker.execute(() -> {
                try {
                    last = check();
                } finally {
                    checking.set(false);
                }
            });
        }
    }

    /** The latest status, waiting up to {@code wait} for a first one. */
    Status current(Duration wait) throws InterruptedException {
        refreshIfStale();
        long deadline = System.nanoTime() + wait.toNanos();
        while (last == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Status s = last;
        return s != null ? s : new Status(false, "the first sandbox check has not finished yet", 0, false, "not checked yet", Instant.now());
    }

    private Status check() {
        boolean sandboxOk;
        String sandboxDetail;
        long t0 = System.nanoTime();
        try {
            Execution e = probeWithin(PROBE_WAIT);
            sandboxOk = e.outcome() == Outcome.OK && e.stdout().text().trim().equals("1");
            sandboxDetail = sandboxOk ? "ok" : "probe ended " + e.outcome() + (e.detail() == null ? "" : ": " + e.detail());
        } catch (OverloadedException e) {
            // busy is not broken: keep the last verdict
            Status prev = last;
            sandboxOk = prev == null || prev.sandboxOk();
            sandboxDetail = "busy: " + e.getMessage();
        } catch (RuntimeException e) {
            sandboxOk = false;
            sandboxDetail = "probe failed: " + e.getMessage();
        }
        long probeMillis = (System.nanoTime() - t0) / 1_000_000;
        boolean storeOk;
        String storeDetail;
        try {
            runLog.get().recent(1, null);
            storeOk = true;
            storeDetail = "ok";
        } catch (RuntimeException e) {
            storeOk = false;
            storeDetail = "store failed: " + e.getMessage();
        }
        if (!sandboxOk || !storeOk) {
            log.warn("not ready: sandbox {}, store {}", sandboxDetail, storeDetail);
        }
        return new Status(sandboxOk, sandboxDetail, probeMillis, storeOk, storeDetail, Instant.now());
    }

    /**
     * Runs the probe, giving up after {@code wait}: on the shared store's workers it waits for one of them, and a door
     * with no live worker must say so rather than keep its check, and with it every later one, waiting.
     */
    private Execution probeWithin(Duration wait) {
        java.util.concurrent.FutureTask<Execution> run = new java.util.concurrent.FutureTask<>(() -> executeCode.execute(probe()));
        Thread t = new Thread(run, "health-probe");
        t.setDaemon(true);
        t.start();
        try {
            return run.get(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            run.cancel(true); // interrupts the probe: a queued one is withdrawn
            throw new IllegalStateException("no result within " + wait.toSeconds() + " s"
                    + (sandbox.tier().equals(dev.codeagent.application.work.QueuedSandbox.TIER)
                            ? " (no worker took it: is a 'codeagent worker' running?)" : ""));
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            run.cancel(true);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    private ExecutionRequest probe() {
        var languages = sandbox.languages();
        Language language = languages.contains(Language.PYTHON) ? Language.PYTHON
                : languages.contains(Language.JAVASCRIPT) ? Language.JAVASCRIPT : Language.BASH;
        String source;
        switch (language) {
            case PYTHON:
                source = "print(1)\n";
                break;
            case JAVASCRIPT:
                source = "console.log(1)\n";
                break;
            default:
                source = "echo 1\n";
                break;
        }
        return new ExecutionRequest(new Program(language, source), "", List.of(),
                ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10)));
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
