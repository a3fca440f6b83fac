package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.OutcomeClassifier;
import dev.codeagent.domain.execution.OutcomeClassifier.Classification;
import dev.codeagent.domain.execution.OutcomeClassifier.Enforced;
import dev.codeagent.domain.execution.OutcomeClassifier.Termination;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One execution: feeds a started child ({@link Launch}) its input and watches it from the caller's
 * thread until it exits, goes past the wall-time limit or an output cap, is cancelled by an interrupt,
 * or the sandbox closes; then kills what is left and collects the result. Every wait after a
 * kill is bounded, so a process that holds a pipe open cannot hang the caller.
 */
final class Run {

    private static final Logger log = LoggerFactory.getLogger(Run.class);
    /** Longest wait for the direct child to be reaped after SIGKILL. */
    private static final Duration EXIT_WAIT = Duration.ofSeconds(5);
    /** Longest wait for the output pumps to reach end-of-file once nothing of the run is alive. */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(2);

    private static final OutcomeClassifier CLASSIFIER = new OutcomeClassifier();

    /** Why the sandbox itself ended a run, if it did. */
    enum Kill {
        WALL_TIME(Enforced.WALL_TIME), OUTPUT(Enforced.OUTPUT), CANCELLED(null), CLOSED(Enforced.CLOSED);

        final Enforced enforced;

        Kill(Enforced enforced) {
            this.enforced = enforced;
        }
    }

    private final Launch launch;
    private final RunSpec spec;
    private final byte[] input;
    private final ExecutionRequest request;
    private final Isolation isolation;
    private final Killer killer;
    private volatile boolean clean = true;
    private volatile boolean cancelled;

    /**
     * @param launch the started child this run watches
     * @param input what to write to the child's stdin before closing it (for a pre-started sandbox, the
     *     job for its bootstrap followed by the program's stdin)
     */
    Run(Launch launch, byte[] input, ExecutionRequest request, Isolation isolation, Killer killer) {
        this.launch = launch;
        this.spec = launch.spec;
        this.input = input;
        this.request = request;
        this.isolation = isolation;
        this.killer = killer;
    }

    /** Whether nothing of the run is left (its uid may be reused). */
    boolean clean() {
        return clean;
    }

    /** Whether the caller's interrupt ended the run; {@link #execute()} then returned null. */
    boolean cancelled() {
        return cancelled;
    }

    /** Ends the run from another thread because the sandbox is closing. */
    void cancelFromClose() {
        launch.close();
    }

    Execution execute() {
        ResourceLimits limits = request.limits();
        OutputBuffer out = launch.out;
        OutputBuffer err = launch.err;
        out.cap(limits.maxOutputBytes());
        err.cap(limits.maxOutputBytes());
        CompletableFuture<Integer> exit = launch.exit;
        long start = System.nanoTime();
        launch.streams.feed(input);

        Kill kill = watch(exit, start + limits.wallTime().toNanos());
        long end = System.nanoTime();
        if (kill != null) {
            clean = killer.killAll(started(exit), spec.uid()) && clean;
        }
        Integer status = awaitExit(exit);
        if (kill == null && status != null) {
            clean = killer.afterExit(started(exit), spec.uid()) && clean;
        }
        if (!launch.streams.awaitDrained(DRAIN_WAIT)) {
            log.warn("process sandbox: output pipes still open after the run; abandoning them");
            clean = killer.killAll(started(exit), spec.uid()) && clean;
            launch.streams.abandon();
        }
        Duration wall = Duration.ofNanos(end - start);
        if (kill == Kill.CANCELLED) {
            cancelled = true;
            return null;
        }
        if (status == null && kill == null) {
            return Execution.sandboxError(startFailure(exit), wall, isolation);
        }
        Rusage usage = Rusage.read(spec.rusageHost());
        Integer signal = kill != null ? Integer.valueOf(OutcomeClassifier.SIGKILL) : status == null ? null : signalOf(status);
        Integer exitCode = kill != null || signal != null ? null : status;
        String stdout = out.capture().text();
        String stderr = err.capture().text();
        Classification v = kill == null && !out.overflowed() && !err.overflowed()
                ? WrapperFailure.detail(exitCode, stdout, stderr).map(d -> new Classification(Outcome.SANDBOX_ERROR, d)).orElse(null)
                : null;
        if (v == null) {
            Termination facts = new Termination(request.program().language(), exitCode, signal,
                    kill == null ? null : kill.enforced, out.overflowed(), err.overflowed(), false, usage.cpu(), stderr, null);
            v = CLASSIFIER.classify(facts, limits);
        }
        if (v.outcome() == Outcome.SANDBOX_ERROR) {
            log.warn("process sandbox: {}", v.detail());
        }
        return new Execution(v.outcome(), exitCode, signal, out.capture(), err.capture(), wall, usage.cpu(),
                usage.peakBytes(), v.detail(), isolation);
    }

    /** Exit status to signal number (129..159: death by signal status-128, the convention of bwrap, shells and Java), or null. */
    static Integer signalOf(int status) {
        return status > 128 && status < 160 ? status - 128 : null;
    }

    /** The started child; waits briefly when a kill came before Commons Exec reported the start. */
    private Process started(CompletableFuture<Integer> exit) {
        Process p = launch.process.getNow(null);
        if (p != null || exit.isDone()) {
            return p;
        }
        try {
            return launch.process.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return launch.process.getNow(null);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /** Waits for the first reason to stop; null when the program exited by itself. */
    private Kill watch(CompletableFuture<Integer> exit, long deadline) {
        CompletableFuture<Void> wake = launch.wake;
        while (true) {
            if (launch.closing) {
                return Kill.CLOSED;
            }
            if (launch.overflow) {
                return Kill.OUTPUT;
            }
            if (exit.isDone()) {
                return null;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return Kill.WALL_TIME;
            }
            try {
                if (wake.isDone()) {
                    // woken by the exit callback racing isDone(): wait for the future itself, bounded
                    exit.get(remaining, TimeUnit.NANOSECONDS);
                } else {
                    wake.get(remaining, TimeUnit.NANOSECONDS);
                }
            } catch (InterruptedException e) {
                return Kill.CANCELLED;
            } catch (TimeoutException | ExecutionException e) {
                // the next iteration decides
            }
        }
    }

    /** The exit status, or null when the child could not be started or was not reaped in time. */
    private Integer awaitExit(CompletableFuture<Integer> exit) {
        long deadline = System.nanoTime() + EXIT_WAIT.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return exit.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // finish the clean-up first; the flag is restored below
                    interrupted = true;
                } catch (ExecutionException e) {
                    return null;
                } catch (TimeoutException e) {
                    log.warn("process sandbox: the child was not reaped {} after the kill", EXIT_WAIT);
                    clean = false;
                    return null;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String startFailure(CompletableFuture<Integer> exit) {
        try {
            exit.getNow(null);
            return "the program did not finish after it was killed";
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return "could not start the program: " + cause.getMessage();
        }
    }

    /**
     * CPU time and peak memory as GNU time wrote them ("%e %U %S %M"); nulls when it did not. The file is
     * the program's uid's and visible to it, so the program can write it (up to its file-size limit): the
     * figures are informative only, and no more than a line is read.
     */
    record Rusage(Duration cpu, Long peakBytes) {

        private static final int MAX_BYTES = 256;

        static Rusage read(java.nio.file.Path file) {
            if (file == null) {
                return new Rusage(null, null);
            }
            try (java.io.InputStream in = Files.newInputStream(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                String s = new String(in.readNBytes(MAX_BYTES), StandardCharsets.US_ASCII).trim();
                String[] f = s.split("\\s+");
                if (f.length != 4) {
                    return new Rusage(null, null);
                }
                double cpu = Double.parseDouble(f[1]) + Double.parseDouble(f[2]);
                long kib = Long.parseLong(f[3]);
                return new Rusage(Duration.ofNanos(Math.round(cpu * 1e9)), kib * 1024);
            } catch (IOException | RuntimeException e) {
                return new Rusage(null, null);
            }
        }
    }
}
