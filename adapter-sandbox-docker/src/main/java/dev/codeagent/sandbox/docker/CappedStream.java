package dev.codeagent.sandbox.docker;

import dev.codeagent.domain.execution.CapturedOutput;
import java.nio.ByteBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Keeps at most {@code cap} bytes of one output stream; past the cap it counts, keeps nothing more
 * and reports itself full. Not thread-safe: one stream thread feeds it, the caller reads it after
 * that thread is done.
 */
final class CappedStream {

    private final long cap;
    private byte[] buf = new byte[256];
    private int size;
    private boolean overflowed;

    CappedStream(long cap) {
        this.cap = cap;
    }

    /** Appends what fits; returns false when the stream went past its cap. */
    boolean append(byte[] data, int off, int len) {
        long room = cap - size;
        int keep = (int) Math.min(room, len);
        if (keep > 0) {
            if (size + keep > buf.length) {
                buf = Arrays.copyOf(buf, (int) Math.min(Math.max((long) buf.length * 2, size + keep), cap));
            }
            System.arraycopy(data, off, buf, size, keep);
            size += keep;
        }
        if (keep < len) {
            overflowed = true;
        }
        return !overflowed;
    }

    boolean overflowed() {
        return overflowed;
    }

    int size() {
        return size;
    }

    /** The buffer itself (valid up to {@link #size()}): read once the stream is over. */
    byte[] buffer() {
        return buf;
    }

    /** The kept bytes as UTF-8, malformed or cut-off sequences replaced by U+FFFD. */
    CapturedOutput toCaptured() {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        try {
            return new CapturedOutput(decoder.decode(ByteBuffer.wrap(buf, 0, size)).toString(), overflowed);
        } catch (java.nio.charset.CharacterCodingException e) {
            // cannot happen with REPLACE; decode leniently anyway rather than fail the execution
            return new CapturedOutput(new String(buf, 0, size, StandardCharsets.UTF_8), overflowed);
        }
    }
}
