package dev.codeagent.sandbox.docker;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * One output stream of a run: the program's bytes go into a {@link CappedStream} until the
 * bootstrap's end marker appears; the line after the marker is the bootstrap's report. A tail that
 * could be the beginning of a marker split across frames is held back until the next frame decides.
 */
final class MarkedStream {

    private static final int MAX_REPORT_BYTES = 4096;

    private final CappedStream kept;
    private final byte[] marker;
    private byte[] pending = new byte[0];
    private ByteArrayOutputStream report;
    private byte[] reportLine;

    MarkedStream(long cap, byte[] marker) {
        this.kept = new CappedStream(cap);
        this.marker = marker;
    }

    /**
     * Takes the next bytes of the stream.
     *
     * @return false when the program's bytes went past the cap
     */
    boolean accept(byte[] data, int off, int len) {
        if (ended()) {
            return true;
        }
        if (report != null) {
            appendReport(data, off, len);
            return true;
        }
        byte[] buf = new byte[pending.length + len];
        System.arraycopy(pending, 0, buf, 0, pending.length);
        System.arraycopy(data, off, buf, pending.length, len);
        int at = indexOf(buf, marker);
        if (at >= 0) {
            pending = new byte[0];
            boolean fits = kept.append(buf, 0, at);
            report = new ByteArrayOutputStream();
            appendReport(buf, at + marker.length, buf.length - at - marker.length);
            return fits;
        }
        int hold = markerPrefixAtEnd(buf, marker);
        int commit = buf.length - hold;
        pending = Arrays.copyOfRange(buf, commit, buf.length);
        return kept.append(buf, 0, commit);
    }

    private void appendReport(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            if (b[i] == '\n') {
                report.write(b, off, i - off);
                reportLine = report.toByteArray();
                return;
            }
        }
        report.write(b, off, len);
        if (report.size() > MAX_REPORT_BYTES) {
            // not a report the bootstrap wrote; end here, with nothing to show for it
            reportLine = new byte[0];
        }
    }

    /** Whether the marker and the whole report line after it have been seen. */
    boolean ended() {
        return reportLine != null;
    }

    /** The report line after the marker (without its newline), or null before {@link #ended()}. */
    byte[] reportLine() {
        return reportLine;
    }

    boolean overflowed() {
        return kept.overflowed();
    }

    /** How many of the program's bytes are kept so far (a held-back tail that may begin the marker is not). */
    int keptSize() {
        return kept.size();
    }

    /** The program's bytes kept so far, without a held-back tail (read by the stream's own thread or under its lock). */
    CappedStream kept() {
        return kept;
    }

    /** The program's bytes, including any held-back tail (the stream is over for the caller). */
    CappedStream flush() {
        if (pending.length > 0) {
            kept.append(pending, 0, pending.length);
            pending = new byte[0];
        }
        return kept;
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** The length of the longest tail of {@code buf} that is a proper prefix of {@code marker}. */
    static int markerPrefixAtEnd(byte[] buf, byte[] marker) {
        for (int k = Math.min(buf.length, marker.length - 1); k > 0; k--) {
            if (Arrays.equals(buf, buf.length - k, buf.length, marker, 0, k)) {
                return k;
            }
        }
        return 0;
    }
}
