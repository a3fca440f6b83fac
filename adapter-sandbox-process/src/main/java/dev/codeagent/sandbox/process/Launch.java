package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.ResourceLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import org.apache.commons.exec.CommandLine;
import org.apache.commons.exec.DefaultExecutor;
import org.apache.commons.exec.ProcessDestroyer;

/**
 * One started child: Commons Exec runs the command on a worker thread, output pumps drain it into
 * bounded buffers. A launch is used by exactly one {@link Child}; a pre-started one (see {@link WarmPool})
 * waits for its run with nothing read and nothing fed yet.
 */
final class Launch {

    final LaunchSpec spec;
    /*
     * Room for the spec's cap from the first byte: a zygote's program writes before its run sets the run's caps
     * (Child.execute cuts what is beyond them then); with a fixed 1 MiB here, a run allowed more that wrote over
     * 1 MiB that early was cut at 1 MiB. A pre-started run's spec is the pool's; its program writes only after its job.
     */
    final OutputBuffer out;
    final OutputBuffer err;
    /** How the two streams interleaved as they were read (Piston's {@code run.output}). */
    final dev.codeagent.kit.sandbox.ArrivalOrder order = new dev.codeagent.kit.sandbox.ArrivalOrder();
    final StreamCapture streams;
    /** The child, as soon as Commons Exec reports it started. */
    final CompletableFuture<Process> process = new CompletableFuture<>();
    /** The exit status; completes exceptionally when the child could not be started. */
    final CompletableFuture<Integer> exit;
    /** Completed by anything the watching thread must react to: exit, an overflow, a close. */
    final CompletableFuture<Void> wake = new CompletableFuture<>();
    volatile boolean overflow;
    volatile boolean closing;
    /** A zygote's run: the program's wait status as its init reported it (null until then, or when it was killed). */
    volatile Child.Report report;
    /** What else ends the run when it is killed (a zygote's run: its pid namespace), or null. */
    private final Runnable kill;
    /** Whether another process started this run (a {@link Zygote}'s): its end is that process's word, not an exit. */
    private final boolean attached;

    /** How a zygote's run ended: the program's wait status, or null with why it never ran (null: it was killed). */
    record Ended(Child.Report report, String failure) {
    }

    private Launch(LaunchSpec spec, List<String> command, ExecutorService threads) {
        this.spec = spec;
        this.out = new OutputBuffer(firstCap(spec));
        this.err = new OutputBuffer(firstCap(spec));
        this.kill = null;
        this.attached = false;
        this.streams = capture(threads);
        DefaultExecutor executor = DefaultExecutor.builder()
                .setExecuteStreamHandler(streams)
                .setWorkingDirectory(spec.hostDir().toFile())
                .get();
        executor.setExitValues(null);
        executor.setProcessDestroyer(new Capture());
        CommandLine line = new CommandLine(command.get(0));
        for (String arg : command.subList(1, command.size())) {
            line.addArgument(arg, false);
        }
        this.exit = CompletableFuture.supplyAsync(() -> {
            try {
                return executor.execute(line, spec.env());
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        }, threads);
        exit.whenComplete((v, t) -> wake.complete(null));
    }

    /**
     * A run another process started (a {@link Zygote}'s): its three streams, and its end, which completes
     * {@link #exit} (exceptionally when it never ran: the failure is the message).
     */
    private Launch(LaunchSpec spec, ExecutorService threads, OutputStream stdin, InputStream stdout, InputStream stderr,
            CompletableFuture<Ended> ended, Runnable kill) {
        this.spec = spec;
        this.out = new OutputBuffer(firstCap(spec));
        this.err = new OutputBuffer(firstCap(spec));
        this.kill = kill;
        this.attached = true;
        this.streams = capture(threads);
        process.complete(null);
        streams.setProcessInputStream(stdin);
        streams.setProcessOutputStream(stdout);
        streams.setProcessErrorStream(stderr);
        streams.start();
        this.exit = ended.thenApply(e -> {
            if (e.failure() != null) {
                throw new CompletionException(new IOException(e.failure()));
            }
            Child.Report r = e.report();
            report = r;
            return r == null ? 128 + dev.codeagent.domain.execution.OutcomeClassifier.SIGKILL
                    : r.signal() != null ? 128 + r.signal() : r.exitCode();
        });
        exit.whenComplete((v, t) -> wake.complete(null));
    }

    private static long firstCap(LaunchSpec spec) {
        return Math.max(ResourceLimits.MIB, spec.limits().maxOutputBytes() + Child.REPORT_ROOM);
    }

    static Launch attached(LaunchSpec spec, ExecutorService threads, OutputStream stdin, InputStream stdout,
            InputStream stderr, CompletableFuture<Ended> ended, Runnable kill) {
        return new Launch(spec, threads, stdin, stdout, stderr, ended, kill);
    }

    private StreamCapture capture(ExecutorService threads) {
        return new StreamCapture(out, err, order, threads, () -> {
            overflow = true;
            wake.complete(null);
        });
    }

    boolean attached() {
        return attached;
    }

    /** Kills what a kill of the run's processes by the host may not reach at once (a zygote's run's namespace). */
    void kill() {
        if (kill != null) {
            kill.run();
        }
    }

    /** Starts the command; the child's stdin stays open until {@link StreamCapture#feed}. */
    static Launch start(LaunchSpec spec, List<String> command, ExecutorService threads) {
        return new Launch(spec, command, threads);
    }

    /** Set from another thread once the judge's verdict stands whatever the program does next (see Child). */
    volatile boolean judged;

    /** Ends the launch from another thread because the judge's verdict is in and nothing after it counts. */
    void endJudged() {
        judged = true;
        wake.complete(null);
    }

    /** Ends the launch from another thread because the sandbox is closing. */
    void close() {
        closing = true;
        wake.complete(null);
    }

    /** Commons Exec hands every started process to its destroyer: the one place to learn the Process. */
    private final class Capture implements ProcessDestroyer {
        @Override
        public boolean add(Process p) {
            process.complete(p);
            return true;
        }

        @Override
        public boolean remove(Process p) {
            return true;
        }

        @Override
        public int size() {
            return process.isDone() ? 1 : 0;
        }
    }
}
