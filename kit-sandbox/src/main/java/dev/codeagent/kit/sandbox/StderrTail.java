package dev.codeagent.kit.sandbox;

import java.nio.charset.StandardCharsets;

/**
 * The last bytes a session's bridge wrote to stderr (the kernel's complaints), kept so that a failure can say
 * what went wrong while the stream itself is drained and never fills. Thread-safe.
 */
public final class StderrTail {

    /** How many bytes are kept. */
    public static final int SIZE = 4096;

    private final byte[] tail = new byte[SIZE];
    private int length;

    /** Keeps the end of {@code b[off, off + n)} and of what came before, up to {@link #SIZE} bytes in all. */
    public synchronized void accept(byte[] b, int off, int n) {
        if (n >= SIZE) {
            System.arraycopy(b, off + n - SIZE, tail, 0, SIZE);
            length = SIZE;
        } else {
            int keep = Math.min(length, SIZE - n);
            System.arraycopy(tail, length - keep, tail, 0, keep);
            System.arraycopy(b, off, tail, keep, n);
            length = keep + n;
        }
    }

    /** What is kept, as text. */
    public synchronized String text() {
        return new String(tail, 0, length, StandardCharsets.UTF_8);
    }
}
