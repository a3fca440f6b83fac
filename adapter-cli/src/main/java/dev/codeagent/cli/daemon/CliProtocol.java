package dev.codeagent.cli.daemon;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The wire format between {@code codeagent-client} (src/main/c) and the background process: frames of
 * one type byte, a 4-byte big-endian length and the payload, both ways. Modelled on Nailgun's chunks,
 * with the stdin flow control the other way round: the command asks for input ({@link #NEED_INPUT}),
 * so that a command which never reads stdin never takes any from the caller.
 *
 * <pre>
 * client: H "codeagent-cli/2 BUILD"  V environment  D cwd  E "K=V"…  A arg…  T flags     (one write)
 * server: h (accepted) | x reason (refused: nothing ran, the client runs the command itself)
 * client: G (go; a client that gave up waiting never sends it, so nothing runs twice)
 * server: O bytes (stdout) | R bytes (stderr) | N n (wants up to n bytes of stdin) | X status
 * client: I bytes (stdin; empty = end of input) | S signal-number
 *
 * client: P (ping)   server: p BUILD   (the launcher's liveness check: a process answers, never a pid)
 * </pre>
 *
 * <p>{@code T} is one byte of bits: 1 a terminal on stdin and stdout (a person watches), 2 a terminal on stdin.
 * {@code V} is the caller's {@link CallerEnvironment}; a process started in another environment refuses.
 */
final class CliProtocol {

    static final String VERSION = "codeagent-cli/2";

    static final byte HELLO = 'H';
    static final byte CWD = 'D';
    static final byte ENV = 'E';
    static final byte ARG = 'A';
    static final byte FLAGS = 'T';
    static final byte GO = 'G';
    static final byte INPUT = 'I';
    static final byte SIGNAL = 'S';
    static final byte ENVIRONMENT = 'V';
    static final byte PING = 'P';

    static final byte ACCEPTED = 'h';
    static final byte REFUSED = 'x';
    static final byte STDOUT = 'O';
    static final byte STDERR = 'R';
    static final byte NEED_INPUT = 'N';
    static final byte EXIT = 'X';
    static final byte PONG = 'p';

    /**
     * Bigger frames are refused: a command line and an environment are a few kilobytes, a stdin chunk at most
     * what the command asked for. (A whole request is capped too: {@link CliServer.Limits#maxRequestBytes}.)
     */
    static final int MAX_FRAME = 1 << 20;

    private CliProtocol() {
    }

    record Frame(byte type, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        int number() {
            if (payload.length != 4) {
                throw new IllegalStateException("frame '" + (char) type + "' should hold 4 bytes, held " + payload.length);
            }
            return ((payload[0] & 0xff) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8) | (payload[3] & 0xff);
        }
    }

    /** @throws EOFException when the peer closed the connection at a frame boundary */
    static Frame read(DataInputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed");
        }
        int length = in.readInt();
        if (length < 0 || length > MAX_FRAME) {
            throw new IOException("frame of " + length + " bytes refused");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame((byte) type, payload);
    }

    /** One frame, written whole: callers on several threads share the stream under its lock. */
    static void write(OutputStream out, byte type, byte[] payload, int off, int len) throws IOException {
        synchronized (out) {
            byte[] frame = new byte[5 + len];
            frame[0] = type;
            System.arraycopy(number(len), 0, frame, 1, 4);
            System.arraycopy(payload, off, frame, 5, len);
            out.write(frame);
            out.flush();
        }
    }

    static void write(OutputStream out, byte type, byte[] payload) throws IOException {
        write(out, type, payload, 0, payload.length);
    }

    static void write(OutputStream out, byte type, String text) throws IOException {
        write(out, type, text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] number(int n) {
        return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
    }
}
