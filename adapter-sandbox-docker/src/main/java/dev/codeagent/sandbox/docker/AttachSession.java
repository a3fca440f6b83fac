package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import dev.codeagent.domain.execution.CapturedOutput;
import java.io.Closeable;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One attach stream of one execution. Demultiplexed frames go into two {@link MarkedStream}s; the
 * bootstrap's ack is checked and stripped from the head of stdout. The run is over when the
 * bootstrap's end marker has come through on both streams (each pipe is ordered, the two are not:
 * waiting for both keeps a traceback written just before exit), with its report on stdout. The
 * stream thread wakes the waiting caller then, or when the stream ends or fails, or a stream
 * overflows its cap.
 */
final class AttachSession implements ResultCallback<Frame> {

    /** Why the waiting stopped. */
    enum End { REPORTED, COMPLETED, FAILED, OVERFLOW }

    private final MarkedStream stdout;
    private final MarkedStream stderr;
    private final dev.codeagent.kit.sandbox.ArrivalOrder order = new dev.codeagent.kit.sandbox.ArrivalOrder();
    private final CountDownLatch done = new CountDownLatch(1);
    private final byte[] ackSeen = new byte[Bootstrap.ACK.length];
    private int ackLength;
    private boolean ackOk;
    private boolean ackBroken;
    private long ackNanos;
    private Bootstrap.Report report;
    private End end;
    private Throwable failure;
    private volatile Closeable stream;
    private volatile boolean closed;

    AttachSession(long maxOutputBytes, String nonce) {
        byte[] marker = Bootstrap.reportMarker(nonce);
        this.stdout = new MarkedStream(maxOutputBytes, marker);
        this.stderr = new MarkedStream(maxOutputBytes, marker);
    }

    @Override
    public void onStart(Closeable closeable) {
        this.stream = closeable;
        if (closed) {
            closeQuietly(closeable);
        }
    }

    /** Hears the program's bytes as they are kept (a live run), on the stream's thread, outside this object's lock. */
    interface Tap {
        /** @param stream {@link dev.codeagent.kit.sandbox.ArrivalOrder#STDOUT} or {@code STDERR} */
        void kept(int stream, byte[] b, int off, int len);
    }

    private volatile Tap tap;
    private int outTapped;
    private int errTapped;

    /** Sets the tap before the stream is attached. */
    void tap(Tap t) {
        this.tap = t;
    }

    @Override
    public void onNext(Frame frame) {
        accept(frame);
        Tap t = tap;
        if (t != null) {
            tapNew(t);
        }
    }

    /**
     * Hands the tap what was kept since last time: only kept bytes, so a held-back tail that may begin the report's
     * marker, the report and the ack never reach it, and nothing past the output cap does.
     */
    private void tapNew(Tap t) {
        byte[] out;
        byte[] err;
        synchronized (this) {
            out = unTapped(stdout.kept(), outTapped);
            outTapped += out.length;
            err = unTapped(stderr.kept(), errTapped);
            errTapped += err.length;
        }
        if (out.length > 0) {
            t.kept(dev.codeagent.kit.sandbox.ArrivalOrder.STDOUT, out, 0, out.length);
        }
        if (err.length > 0) {
            t.kept(dev.codeagent.kit.sandbox.ArrivalOrder.STDERR, err, 0, err.length);
        }
    }

    private static byte[] unTapped(CappedStream kept, int tapped) {
        return kept.size() > tapped ? Arrays.copyOfRange(kept.buffer(), tapped, kept.size()) : new byte[0];
    }

    private synchronized void accept(Frame frame) {
        if (end != null) {
            return;
        }
        byte[] payload = frame.getPayload();
        if (payload == null || payload.length == 0) {
            return;
        }
        StreamType type = frame.getStreamType();
        boolean fits;
        if (type == StreamType.STDERR) {
            fits = stderr.accept(payload, 0, payload.length);
        } else if (type == StreamType.STDOUT || type == StreamType.RAW) {
            int offset = 0;
            if (!ackOk) {
                offset = consumeAck(payload);
                if (ackBroken) {
                    stdout.accept(payload, 0, payload.length);
                    finish(End.COMPLETED, null);
                    return;
                }
            }
            fits = stdout.accept(payload, offset, payload.length - offset);
        } else {
            return;
        }
        order.kept(type == StreamType.STDERR ? dev.codeagent.kit.sandbox.ArrivalOrder.STDERR
                : dev.codeagent.kit.sandbox.ArrivalOrder.STDOUT, type == StreamType.STDERR ? stderr.keptSize() : stdout.keptSize());
        if (!fits) {
            finish(End.OVERFLOW, null);
        } else if (stdout.ended() && stderr.ended()) {
            report = Bootstrap.Report.parse(stdout.reportLine());
            finish(report != null ? End.REPORTED : End.COMPLETED, null);
        }
    }

    private int consumeAck(byte[] payload) {
        int n = Math.min(payload.length, ackSeen.length - ackLength);
        System.arraycopy(payload, 0, ackSeen, ackLength, n);
        ackLength += n;
        if (!Arrays.equals(ackSeen, 0, ackLength, Bootstrap.ACK, 0, ackLength)) {
            ackBroken = true;
        } else if (ackLength == ackSeen.length) {
            ackNanos = System.nanoTime();
            ackOk = true;
        }
        return n;
    }

    @Override
    public synchronized void onError(Throwable throwable) {
        finish(End.FAILED, throwable);
    }

    @Override
    public synchronized void onComplete() {
        finish(End.COMPLETED, null);
    }

    private void finish(End how, Throwable t) {
        if (end != null) {
            return;
        }
        failure = t;
        end = how;
        done.countDown();
    }

    /** Waits until the run is reported, the stream ends, or a stream overflows; null when the time ran out first. */
    End await(long nanos) throws InterruptedException {
        if (!done.await(nanos, TimeUnit.NANOSECONDS)) {
            return null;
        }
        synchronized (this) {
            return end;
        }
    }

    /** Waits a little for the tail of the stream after the container was stopped. */
    void drain(long millis) throws InterruptedException {
        done.await(millis, TimeUnit.MILLISECONDS);
    }

    /** True once the bootstrap confirmed that the program started. */
    synchronized boolean started() {
        return ackOk;
    }

    /** Whether stdout began with something other than the ack: the container was not running our bootstrap. */
    synchronized boolean ackBroken() {
        return ackBroken;
    }

    synchronized long startedAtNanos() {
        return ackNanos;
    }

    /** The bootstrap's report, once {@link End#REPORTED}. */
    synchronized Bootstrap.Report report() {
        return report;
    }

    synchronized Throwable failure() {
        return failure;
    }

    /** What was kept of both streams; frames arriving later are ignored. */
    synchronized Captured snapshot() {
        finish(End.FAILED, null);
        CappedStream out = stdout.flush();
        CappedStream err = stderr.flush();
        Tap t = tap;
        if (t != null) {
            // a tail held back as a possible marker is the program's after all (the tap runs under the lock here:
            // the stream is over, nothing waits on it)
            tapNew(t);
        }
        return new Captured(out.toCaptured(), err.toCaptured(), out.overflowed(), err.overflowed(),
                order.merge(out.buffer(), out.size(), err.buffer(), err.size(), out.overflowed() || err.overflowed()));
    }

    /** Both streams as kept, which of them went past the cap, and both in the order they arrived. */
    record Captured(CapturedOutput stdout, CapturedOutput stderr, boolean stdoutOverflowed, boolean stderrOverflowed,
            CapturedOutput output) {
    }

    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            finish(End.FAILED, null);
        }
        Closeable s = stream;
        if (s != null) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException | RuntimeException e) {
            // the stream is being abandoned; nothing more to learn from it
        }
    }
}
