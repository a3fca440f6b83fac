package dev.codeagent.kit.sandbox;

import dev.codeagent.domain.execution.CapturedOutput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The order in which a program's two output streams arrived, for giving them back interleaved as they came
 * (Piston's {@code run.output}, a terminal's view) without a third copy of the output while the program runs: each
 * tier notes how far each stream's capped buffer had grown after each chunk it took, and {@link #merge} walks those
 * notes over the final buffers. Chunks are as the reader got them, so two writes closer together than one read of
 * the other stream may come back in either order — as they would on a terminal.
 *
 * <p>Thread-safe: the two streams may be read by two threads.
 */
public final class ArrivalOrder {

    public static final int STDOUT = 0;
    public static final int STDERR = 1;

    private int[] streams = new int[32];
    private long[] sizes = new long[32];
    private int count;
    private final long[] noted = new long[2];

    /**
     * Notes that a stream's buffer now holds {@code size} bytes. A chunk the cap refused (no growth) notes nothing;
     * consecutive chunks of one stream are one note.
     */
    public synchronized void kept(int stream, long size) {
        check(stream);
        if (size <= noted[stream]) {
            return;
        }
        noted[stream] = size;
        if (count > 0 && streams[count - 1] == stream) {
            sizes[count - 1] = size;
            return;
        }
        if (count == streams.length) {
            streams = Arrays.copyOf(streams, count * 2);
            sizes = Arrays.copyOf(sizes, count * 2);
        }
        streams[count] = stream;
        sizes[count] = size;
        count++;
    }

    /**
     * Both streams' kept bytes in arrival order, decoded as UTF-8 (malformed bytes replaced). The buffers are the
     * final ones and may be shorter than noted (a supervisor's report taken off the end); a UTF-8 sequence split
     * between two chunks of one stream is kept whole with the later chunk.
     *
     * @param truncated whether either stream went past its cap
     */
    public synchronized CapturedOutput merge(byte[] out, int outSize, byte[] err, int errSize, boolean truncated) {
        byte[][] bufs = {out, err};
        int[] ends = {outSize, errSize};
        int[] at = {0, 0};
        ByteArrayOutputStream merged = new ByteArrayOutputStream(outSize + errSize);
        for (int i = 0; i < count; i++) {
            int s = streams[i];
            int upTo = (int) Math.min(sizes[i], ends[s]);
            while (upTo > at[s] && upTo < ends[s] && (bufs[s][upTo] & 0xC0) == 0x80) {
                upTo--;
            }
            if (upTo > at[s]) {
                merged.write(bufs[s], at[s], upTo - at[s]);
                at[s] = upTo;
            }
        }
        for (int s = 0; s < 2; s++) {
            if (ends[s] > at[s]) {
                merged.write(bufs[s], at[s], ends[s] - at[s]);
            }
        }
        return new CapturedOutput(new String(merged.toByteArray(), StandardCharsets.UTF_8), truncated);
    }

    private static void check(int stream) {
        if (stream != STDOUT && stream != STDERR) {
            throw new IllegalArgumentException("stream must be STDOUT (0) or STDERR (1), was " + stream);
        }
    }
}
