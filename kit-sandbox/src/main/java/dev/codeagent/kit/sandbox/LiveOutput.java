package dev.codeagent.kit.sandbox;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.LiveExecution;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a tier's {@link LiveExecution} shares: the program's bytes, stream by stream, decoded as UTF-8 and passed to
 * the {@link LiveExecution.Listener} (a character split between two reads comes whole in the later one; malformed
 * bytes become U+FFFD; a listener that throws is logged, never the run's failure), and the wait for the run's task.
 * At most the run's output limit of each stream is passed on, whatever a tier reads: the limits hold for what a run
 * streams as for its result (the process tier's pumps read up to a MiB past a small cap before the run is cut).
 */
public final class LiveOutput {

    private static final Logger log = LoggerFactory.getLogger(LiveOutput.class);

    private final LiveExecution.Listener listener;
    private final Decoder out;
    private final Decoder err;

    /** @param maxBytes how many bytes of each stream may be passed on (the run's {@code maxOutputBytes}) */
    public LiveOutput(LiveExecution.Listener listener, long maxBytes) {
        this.listener = listener;
        this.out = new Decoder(maxBytes);
        this.err = new Decoder(maxBytes);
    }

    /**
     * Passes on a chunk of {@code stream} ({@link LiveExecution.Listener#STDOUT} or {@code STDERR}); how many
     * characters that was (a character split at the chunk's end comes with the next).
     */
    public int pass(int stream, byte[] b, int off, int len) {
        return decode(stream, b, off, len, false);
    }

    /** Passes on the last bytes of {@code stream} and what its decoder held back: the stream is over. */
    public void end(int stream, byte[] b, int off, int len) {
        decode(stream, b, off, len, true);
    }

    /**
     * Ends {@code stream} with text the run's result holds rather than bytes: what its decoder held back is dropped
     * (the text has it as the result decoded it), and the text passes on whole (it is the result's, within its cap).
     */
    public void endWith(int stream, String text) {
        Decoder d = stream == LiveExecution.Listener.STDOUT ? out : err;
        synchronized (d) {
            d.drop();
            tell(stream, text);
        }
    }

    /** {@link #end(int, byte[], int, int)} with nothing more for both streams. */
    public void end() {
        end(LiveExecution.Listener.STDOUT, new byte[0], 0, 0);
        end(LiveExecution.Listener.STDERR, new byte[0], 0, 0);
    }

    private int decode(int stream, byte[] b, int off, int len, boolean last) {
        Decoder d = stream == LiveExecution.Listener.STDOUT ? out : err;
        synchronized (d) {
            String text = d.decode(b, off, d.take(len), last);
            tell(stream, text);
            return text.length();
        }
    }

    private void tell(int stream, String text) {
        if (text.isEmpty()) {
            return;
        }
        try {
            listener.output(stream, text);
        } catch (RuntimeException e) {
            log.warn("a live execution's listener failed: {}", e.toString());
        }
    }

    /**
     * Waits for a live run's task as {@link LiveExecution#await()} does: its execution, or
     * {@link ExecutionCancelledException} when it was cancelled or this thread was interrupted (which cancels it).
     */
    public static Execution await(FutureTask<Execution> task) {
        try {
            return task.get();
        } catch (CancellationException cancelled) {
            throw new ExecutionCancelledException("the live execution was cancelled");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            task.cancel(true);
            throw new ExecutionCancelledException("interrupted while waiting for the live execution");
        } catch (ExecutionException failed) {
            if (failed.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(failed.getCause());
        }
    }

    private static final class Decoder {
        private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        private byte[] rest = new byte[0];
        private long room;

        Decoder(long maxBytes) {
            this.room = Math.max(0, maxBytes);
        }

        /** How many of {@code len} more bytes may pass, taken from what is left of the stream's limit. */
        int take(int len) {
            int n = (int) Math.min(Math.max(len, 0), room);
            room -= n;
            return n;
        }

        void drop() {
            rest = new byte[0];
            room = 0;
            decoder.reset();
        }

        String decode(byte[] b, int off, int len, boolean end) {
            ByteBuffer in = ByteBuffer.allocate(rest.length + len);
            in.put(rest).put(b, off, len).flip();
            CharBuffer chars = CharBuffer.allocate(in.remaining() + 4);
            decoder.decode(in, chars, end);
            if (end) {
                decoder.flush(chars);
                decoder.reset();
            }
            rest = new byte[in.remaining()];
            in.get(rest);
            chars.flip();
            return chars.toString();
        }
    }
}
