package dev.codeagent.sandbox.docker;

import java.nio.charset.StandardCharsets;

/**
 * What the host sends a live run's supervisor after the payload, on the container's stdin (which the program never
 * reads: its stdin is a pipe the supervisor feeds). Each frame opens with one letter and a decimal number ending in a
 * newline: {@code d<n>\n} and n bytes for the program's stdin, {@code c\n} to close it, {@code s<signal>\n} for a
 * signal to every process of the container but the supervisor. {@code supervisor.py} reads them.
 */
final class LiveFrames {

    private LiveFrames() {
    }

    static byte[] data(byte[] bytes) {
        byte[] head = ("d" + bytes.length + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] frame = new byte[head.length + bytes.length];
        System.arraycopy(head, 0, frame, 0, head.length);
        System.arraycopy(bytes, 0, frame, head.length, bytes.length);
        return frame;
    }

    static byte[] closeStdin() {
        return "c\n".getBytes(StandardCharsets.US_ASCII);
    }

    /** @throws IllegalArgumentException for a number that is not a Linux signal */
    static byte[] signal(int signal) {
        if (signal < 1 || signal > 64) {
            throw new IllegalArgumentException("not a signal: " + signal);
        }
        return ("s" + signal + "\n").getBytes(StandardCharsets.US_ASCII);
    }
}
