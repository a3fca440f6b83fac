package dev.codeagent.application.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A blocking socket channel's two directions as streams that a reader and a writer may use at once.
 *
 * <p>Not {@code Channels.newInputStream}/{@code newOutputStream}: those hold the channel's blocking lock while they
 * wait, so a read waiting for the peer's next bytes would hold up every write (a program's stdin could not be written
 * while its stdout is read; a command's output could not be sent while the client's next frame is awaited). The
 * channel itself reads and writes concurrently.
 */
public final class ChannelStreams {

    private ChannelStreams() {
    }

    /**
     * @param closesChannel whether closing the stream closes the channel (when this direction is all the channel is
     *     used for), or leaves it to its owner
     */
    public static InputStream input(SocketChannel ch, boolean closesChannel) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return len == 0 ? 0 : ch.read(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void close() throws IOException {
                if (closesChannel) {
                    ch.close();
                }
            }
        };
    }

    /** @param closesChannel as for {@link #input} */
    public static OutputStream output(SocketChannel ch, boolean closesChannel) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                ByteBuffer buf = ByteBuffer.wrap(b, off, len);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }

            @Override
            public void close() throws IOException {
                if (closesChannel) {
                    ch.close();
                }
            }
        };
    }
}
