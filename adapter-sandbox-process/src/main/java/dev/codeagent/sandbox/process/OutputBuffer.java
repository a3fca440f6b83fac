package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.CapturedOutput;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Keeps at most {@code cap} bytes of one output stream and remembers whether more arrived. Thread-safe:
 * a pump thread appends while the controlling thread may take a snapshot after a kill.
 */
final class OutputBuffer {

    private int cap;
    private byte[] bytes = new byte[256];
    private int size;
    private boolean overflowed;

    OutputBuffer(long cap) {
        if (cap < 1) {
            throw new IllegalArgumentException("cap must be at least 1, was " + cap);
        }
        this.cap = (int) Math.min(cap, Integer.MAX_VALUE - 8);
    }

    /**
     * Sets the run's cap, which a buffer may learn after its stream started: a pre-started sandbox learns it with
     * the job, and a zygote's program runs (and writes) before its run is watched. What arrived beyond it is cut
     * off, as if the cap had been there from the start (it once stayed, and a fast writer's 100 kB under a 4 kB cap
     * ended OK).
     *
     * @return true when the stream is past the new cap for the first time
     */
    synchronized boolean cap(long newCap) {
        if (newCap < 1) {
            throw new IllegalArgumentException("cap must be at least 1, was " + newCap);
        }
        this.cap = (int) Math.min(newCap, Integer.MAX_VALUE - 8);
        if (size > cap) {
            size = cap;
            if (!overflowed) {
                overflowed = true;
                return true;
            }
        }
        return false;
    }

    /**
     * Appends what fits under the cap.
     *
     * @return true when this call pushed the stream past its cap for the first time
     */
    synchronized boolean append(byte[] b, int off, int len) {
        if (len <= 0) {
            return false;
        }
        int room = cap - size;
        int take = Math.min(room, len);
        if (take > 0) {
            if (size + take > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(cap, Math.max((long) bytes.length * 2, size + take)));
            }
            System.arraycopy(b, off, bytes, size, take);
            size += take;
        }
        if (len > take && !overflowed) {
            overflowed = true;
            return true;
        }
        return false;
    }

    /**
     * Takes the supervisor's report off the end of the stream: the line after the last {@code marker}, when
     * the stream ends with it (the supervisor writes it after every other writer of the pipe is dead).
     *
     * @return the report's text without the marker and newline, or null when the stream does not end with one
     */
    synchronized String takeReport(byte[] marker) {
        if (size == 0 || bytes[size - 1] != '\n') {
            return null;
        }
        for (int i = size - marker.length - 1; i >= 0; i--) {
            if (Arrays.equals(bytes, i, i + marker.length, marker, 0, marker.length)) {
                String report = new String(bytes, i + marker.length, size - 1 - i - marker.length, StandardCharsets.US_ASCII);
                if (report.indexOf('\n') >= 0) {
                    return null;
                }
                size = i;
                return report;
            }
        }
        return null;
    }

    /** Applies the cap again after a report was taken off a stream that had room for it beyond the cap. */
    synchronized void enforceCap(long finalCap) {
        if (size > finalCap) {
            size = (int) finalCap;
            overflowed = true;
        }
    }

    synchronized boolean overflowed() {
        return overflowed;
    }

    synchronized int size() {
        return size;
    }

    /**
     * The kept bytes as UTF-8 text, malformed sequences replaced by U+FFFD. When the stream was cut at
     * the cap, a multi-byte character split by the cut is dropped rather than shown as a replacement.
     */
    /** The kept bytes interleaved with another buffer's as they arrived. */
    CapturedOutput mergedWith(OutputBuffer other, dev.codeagent.kit.sandbox.ArrivalOrder order) {
        byte[] mine;
        int mySize;
        synchronized (this) {
            mySize = overflowed ? completeUtf8Prefix(bytes, size) : size;
            mine = Arrays.copyOf(bytes, mySize);
        }
        byte[] theirs;
        int theirSize;
        boolean truncated;
        synchronized (other) {
            theirSize = other.overflowed ? completeUtf8Prefix(other.bytes, other.size) : other.size;
            theirs = Arrays.copyOf(other.bytes, theirSize);
            truncated = other.overflowed;
        }
        synchronized (this) {
            truncated |= overflowed;
        }
        return order.merge(mine, mySize, theirs, theirSize, truncated);
    }

    synchronized CapturedOutput capture() {
        int end = overflowed ? completeUtf8Prefix(bytes, size) : size;
        return new CapturedOutput(new String(bytes, 0, end, StandardCharsets.UTF_8), overflowed);
    }

    /** Length of {@code b[0..n)} without a trailing UTF-8 sequence that the cut left incomplete. */
    static int completeUtf8Prefix(byte[] b, int n) {
        int i = n - 1;
        int continuation = 0;
        while (i >= 0 && continuation < 3 && (b[i] & 0xC0) == 0x80) {
            i--;
            continuation++;
        }
        if (i < 0) {
            return n;
        }
        int lead = b[i] & 0xFF;
        int expected = lead >= 0xF5 ? -1 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC2 ? 1 : -1;
        if (expected > 0 && continuation < expected) {
            return i;
        }
        return n;
    }
}
