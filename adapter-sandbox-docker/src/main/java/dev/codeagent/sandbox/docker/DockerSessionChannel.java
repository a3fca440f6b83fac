package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import dev.codeagent.kit.sandbox.BridgeSession;
import dev.codeagent.kit.sandbox.EndingChannel;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A session's container as its {@link BridgeSession} sees it: the kernel bridge is the container's command (uid
 * 65534, no capabilities, read-only root, no network, the tier's seccomp profile), its stdin and stdout are the
 * attach stream's, the tail of its stderr is kept. The container holds the session's memory, processes and CPU
 * for its whole life; {@link #destroy()} force-removes it, and with it every process and file of the session.
 */
final class DockerSessionChannel extends EndingChannel implements ResultCallback<Frame> {

    /** Chunks of the bridge's stdout not yet read: the attach thread waits (backpressure) beyond this. */
    private static final int MAX_CHUNKS = 4096;

    private final ChunkStream frames = new ChunkStream(MAX_CHUNKS);
    private final ChunkStream stdin = new ChunkStream(MAX_CHUNKS);
    private final Runnable remove;
    private volatile Closeable stream;

    /** @param remove force-removes the session's container */
    DockerSessionChannel(Runnable remove) {
        this.remove = remove;
    }

    /** What the attach call writes to the container's stdin: the commands, until the session ends. */
    InputStream containerStdin() {
        return stdin;
    }

    @Override
    public InputStream frames() {
        return frames;
    }

    @Override
    public OutputStream commands() {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (len > 0 && !stdin.offer(java.util.Arrays.copyOfRange(b, off, off + len))) {
                    throw new IOException("the session's container is gone");
                }
            }

            @Override
            public void close() {
                stdin.end();
            }
        };
    }

    @Override
    protected void release() {
        try {
            remove.run();
        } finally {
            stdin.end();
            frames.end();
            Closeable s = stream;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException | RuntimeException e) {
                    // the stream is being abandoned with its container
                }
            }
        }
    }

    @Override
    public void onStart(Closeable closeable) {
        stream = closeable;
    }

    @Override
    public void onNext(Frame frame) {
        byte[] payload = frame.getPayload();
        if (payload == null || payload.length == 0) {
            return;
        }
        if (frame.getStreamType() == StreamType.STDERR) {
            tail.accept(payload, 0, payload.length);
        } else if (frame.getStreamType() == StreamType.STDOUT || frame.getStreamType() == StreamType.RAW) {
            // a copy: the client may reuse the frame's buffer for the next one once this returns (false once the
            // session ended: what the container still says is nobody's)
            frames.put(payload.clone());
        }
    }

    @Override
    public void onError(Throwable throwable) {
        failed("the session's attach stream failed: " + DockerEngine.describe(throwable));
        frames.end();
    }

    @Override
    public void onComplete() {
        // the bridge's stdout ended: the container stopped; the session sees end of stream
        frames.end();
    }

    @Override
    public void close() {
        destroy();
    }

    /**
     * An input stream fed chunk by chunk from another thread, ending when {@link #end()} is called and every
     * chunk before it was read. Bounded: a producer waits while {@code max} chunks are unread.
     */
    static final class ChunkStream extends InputStream {

        private static final byte[] END = new byte[0];
        private final BlockingQueue<byte[]> chunks;
        private byte[] current;
        private int pos;
        private volatile boolean ended;

        ChunkStream(int max) {
            this.chunks = new LinkedBlockingQueue<>(max);
        }

        /** Adds a chunk, waiting for room; false once ended. */
        boolean put(byte[] chunk) {
            if (ended) {
                return false;
            }
            try {
                chunks.put(chunk);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Adds a chunk without waiting longer than a few seconds for room; false once ended or still full. */
        boolean offer(byte[] chunk) {
            if (ended) {
                return false;
            }
            try {
                return chunks.offer(chunk, 5, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Nothing more comes: readers see the end once they have read what is queued. */
        void end() {
            if (!ended) {
                ended = true;
                // never blocks the ender: when the queue is full the reader still finds the flag after draining it
                chunks.offer(END);
            }
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (current == null || pos >= current.length) {
                if (current == END) {
                    return -1;
                }
                try {
                    byte[] next = ended ? chunks.poll() : chunks.poll(200, java.util.concurrent.TimeUnit.MILLISECONDS);
                    if (next == null) {
                        if (ended && chunks.isEmpty()) {
                            current = END;
                            return -1;
                        }
                        continue;
                    }
                    current = next;
                    pos = 0;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for the session's output");
                }
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() {
            end();
        }
    }
}
