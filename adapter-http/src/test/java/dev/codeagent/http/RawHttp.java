package dev.codeagent.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/** Sends raw bytes over a socket, for requests no well-behaved client would make. HTTP/1.0-style: reads to the end. */
final class RawHttp {

    /** What came back: the status (0 when the server closed without answering) and the whole response text. */
    record Reply(int status, String text, long millis) {
        String body() {
            int i = text.indexOf("\r\n\r\n");
            return i < 0 ? "" : text.substring(i + 4);
        }
    }

    private RawHttp() {
    }

    static Reply send(URI base, byte[] request, int readTimeoutMs) {
        long t0 = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 5000);
            s.setSoTimeout(readTimeoutMs);
            OutputStream out = s.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (IOException e) {
                // the server may refuse mid-request (e.g. headers too large) and close: read what it said
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    got.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no answer within " + readTimeoutMs + " ms; got so far: "
                        + got.toString(StandardCharsets.UTF_8), e);
            } catch (IOException e) {
                // connection reset after the answer: keep what arrived
            }
            String text = got.toString(StandardCharsets.ISO_8859_1);
            int status = 0;
            if (text.startsWith("HTTP/")) {
                status = Integer.parseInt(text.substring(9, 12));
            }
            return new Reply(status, text, (System.nanoTime() - t0) / 1_000_000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] bytes(String head, byte[] body) {
        byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }
}
