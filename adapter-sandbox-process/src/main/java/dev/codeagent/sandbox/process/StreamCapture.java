package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.ArrivalOrder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.exec.ExecuteStreamHandler;

/**
 * Feeds stdin and drains stdout and stderr of one child concurrently into bounded buffers. Past a cap
 * it keeps draining (and discarding) so that the child never blocks on a full pipe before it is killed,
 * and tells the controller once. {@link #stop()} waits only a bounded time: a descendant that survived
 * a kill could hold the pipes open forever, and the sandbox must never hang on it.
 */
final class StreamCapture implements ExecuteStreamHandler {

    private static final int CHUNK = 16 * 1024;
    /** How long Commons Exec's own stop() waits for the pumps once the direct child has exited. */
    private static final Duration STOP_WAIT = Duration.ofMillis(500);

    private final OutputBuffer stdout;
    private final OutputBuffer stderr;
    private final ArrivalOrder order;
    private final ExecutorService threads;
    private final Runnable onOverflow;
    private final CountDownLatch drained = new CountDownLatch(2);
    private volatile InputStream out;
    private volatile InputStream err;
    private final java.util.concurrent.CompletableFuture<OutputStream> in = new java.util.concurrent.CompletableFuture<>();
    private volatile boolean started;
    /** Who else sees each chunk as it is read (a live run), or null. */
    private volatile LiveChild live;

    StreamCapture(OutputBuffer stdout, OutputBuffer stderr, ArrivalOrder order, ExecutorService threads, Runnable onOverflow) {
        this.stdout = stdout;
        this.stderr = stderr;
        this.order = order;
        this.threads = threads;
        this.onOverflow = onOverflow;
    }

    @Override
    public void setProcessInputStream(OutputStream os) {
        in.complete(os);
    }

    @Override
    public void setProcessOutputStream(InputStream is) {
        this.out = is;
    }

    @Override
    public void setProcessErrorStream(InputStream is) {
        this.err = is;
    }

    @Override
    public void start() {
        started = true;
        threads.execute(() -> pump(out, stdout, ArrivalOrder.STDOUT));
        threads.execute(() -> pump(err, stderr, ArrivalOrder.STDERR));
    }

    /**
     * Writes these bytes to the child's stdin, then closes it (end-of-file). Empty input closes at once.
     * Runs on a pool thread, so that a program that never reads cannot block the caller.
     */
    void feed(byte[] bytes) {
        in.thenAcceptAsync(os -> {
            write(os, bytes);
            closeQuietly(os);
        }, threads);
    }

    private static void write(OutputStream os, byte[] bytes) {
        try {
            if (bytes.length > 0) {
                os.write(bytes);
                os.flush();
            }
        } catch (IOException programStoppedReading) {
            // the program exited or closed stdin before reading it all; that is its business
        }
    }

    /**
     * For a live run: hands each chunk read to {@code run} as well, writes {@code head} (the job and the request's
     * stdin) to the child's stdin and leaves it open, then gives it to {@code run} (with the run's group) for
     * more. Call before anything can be read: the supervisor starts the program only once it has its job.
     */
    void feedLive(byte[] head, LiveChild run, ChildGroup group) {
        this.live = run;
        in.thenAcceptAsync(os -> {
            write(os, head);
            run.opened(group, os);
        }, threads);
    }

    @Override
    public void stop() {
        awaitDrained(STOP_WAIT);
    }

    /** Waits until both output pumps reached end-of-file; false when they had not within the time. */
    boolean awaitDrained(Duration max) {
        if (!started) {
            return true;
        }
        try {
            return drained.await(max.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return drained.getCount() == 0;
        }
    }

    /**
     * Gives up on pipes still held open (by a process the sandbox could not kill): closes our ends so
     * that nothing more is read; a pump blocked in read() finishes when the holder dies.
     */
    void abandon() {
        closeQuietly(in.getNow(null));
        closeQuietly(out);
        closeQuietly(err);
    }

    private void pump(InputStream src, OutputBuffer dst, int stream) {
        if (src == null) {
            drained.countDown();
            return;
        }
        byte[] buf = new byte[CHUNK];
        try {
            int n;
            while ((n = src.read(buf)) >= 0) {
                boolean over;
                // noted in the order the chunks were taken, whichever pump takes the next one
                synchronized (order) {
                    over = dst.append(buf, 0, n);
                    order.kept(stream, dst.size());
                }
                LiveChild watcher = live;
                if (watcher != null) {
                    watcher.chunk(stream, buf, 0, n);
                }
                if (over) {
                    onOverflow.run();
                }
            }
        } catch (IOException closed) {
            // our end was closed after a kill: what was read is kept
        } finally {
            // at end-of-file nothing more comes: our end is closed now, not when the collector gets to it (a zygote's
            // run's streams are sockets, which nothing else closes: 14,000 of them were left open in a warm JVM)
            closeQuietly(src);
            drained.countDown();
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // closing a pipe whose other end is gone cannot fail in a way that matters
        }
    }
}
