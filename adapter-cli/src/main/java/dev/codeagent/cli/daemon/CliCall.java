package dev.codeagent.cli.daemon;

import dev.codeagent.cli.CliContext;
import dev.codeagent.cli.CodeAgentCli;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * One command handed over by one client: read the request, answer the handshake, run the command as
 * {@code main} would with the caller's environment, directory and streams, and send its exit status.
 * A signal from the client, or the client going away, interrupts the command, which is how {@code main}'s
 * shutdown hook cancels it in a one-shot process.
 */
final class CliCall {

    /** What a client asked for. */
    record Request(String build, Path cwd, Map<String, String> env, List<String> args, boolean interactive) {
    }

    private final DataInputStream in;
    private final OutputStream out;
    private final String build;
    private final Function<dev.codeagent.application.config.CodeAgentConfig, dev.codeagent.application.CodeAgent> agents;
    private final BlockingQueue<byte[]> input = new LinkedBlockingQueue<>();
    private volatile boolean clientGone;
    /** The thread running the command while it runs; null before and after, so that no interrupt outlives it. */
    private Thread command;

    CliCall(InputStream in, OutputStream out, String build,
            Function<dev.codeagent.application.config.CodeAgentConfig, dev.codeagent.application.CodeAgent> agents) {
        this.in = new DataInputStream(in);
        this.out = out;
        this.build = build;
        this.agents = agents;
    }

    /** Reads the request up to its end; null when the client left before sending one whole. */
    static Request readRequest(DataInputStream in) throws IOException {
        CliProtocol.Frame hello = CliProtocol.read(in);
        if (hello.type() != CliProtocol.HELLO) {
            throw new IOException("expected a handshake, got frame '" + (char) hello.type() + "'");
        }
        String[] words = hello.text().split(" ", 2);
        if (!words[0].equals(CliProtocol.VERSION) || words.length < 2) {
            throw new IOException("unknown protocol '" + words[0] + "'");
        }
        Path cwd = null;
        Map<String, String> env = new LinkedHashMap<>();
        List<String> args = new ArrayList<>();
        while (true) {
            CliProtocol.Frame f = CliProtocol.read(in);
            switch (f.type()) {
                case CliProtocol.CWD -> cwd = Path.of(f.text());
                case CliProtocol.ENV -> {
                    String kv = f.text();
                    int eq = kv.indexOf('=');
                    if (eq > 0) {
                        env.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                }
                case CliProtocol.ARG -> args.add(f.text());
                case CliProtocol.FLAGS -> {
                    if (cwd == null || !cwd.isAbsolute()) {
                        throw new IOException("no absolute working directory in the request");
                    }
                    return new Request(words[1], cwd, env, args, f.payload().length > 0 && (f.payload()[0] & 1) != 0);
                }
                default -> throw new IOException("unexpected frame '" + (char) f.type() + "' in a request");
            }
        }
    }

    /** Serves the call to its end. Never throws: a broken connection just ends the call. */
    void serve() {
        // a pooled thread: nothing of an earlier call may reach this one (an interrupt would close the channel)
        Thread.interrupted();
        Request request;
        try {
            request = readRequest(in);
            if (!request.build().equals(build)) {
                CliProtocol.write(out, CliProtocol.REFUSED, "it runs another build of codeagent");
                return;
            }
            CliProtocol.write(out, CliProtocol.ACCEPTED, new byte[0]);
            CliProtocol.Frame go = CliProtocol.read(in);
            if (go.type() != CliProtocol.GO) {
                return;
            }
        } catch (IOException | RuntimeException e) {
            return;
        }
        synchronized (this) {
            command = Thread.currentThread();
        }
        Thread reader = new Thread(this::readClient, "codeagent-call-reader");
        reader.setDaemon(true);
        reader.start();
        int status;
        PrintWriter stdout = writer(CliProtocol.STDOUT);
        PrintWriter stderr = writer(CliProtocol.STDERR);
        try {
            CliContext context = new CliContext(new ClientInput(), request.env(), request.interactive(), request.cwd(), agents, false);
            status = CodeAgentCli.commandLine(context, stdout, stderr).execute(request.args().toArray(String[]::new));
        } finally {
            stdout.flush();
            stderr.flush();
            synchronized (this) {
                command = null;
            }
            Thread.interrupted();
        }
        try {
            CliProtocol.write(out, CliProtocol.EXIT, CliProtocol.number(status));
        } catch (IOException e) {
            // the client left; nothing is waiting for the status
        }
    }

    /**
     * Stdin frames to the input queue; a signal or the client leaving interrupts the command — only while it
     * runs: the client closes the connection once it has the exit status, and by then the thread may be serving
     * the next call, whose channel an interrupt would close.
     */
    private void readClient() {
        try {
            while (true) {
                CliProtocol.Frame f = CliProtocol.read(in);
                if (f.type() == CliProtocol.INPUT) {
                    input.add(f.payload());
                } else if (f.type() == CliProtocol.SIGNAL) {
                    interruptCommand();
                }
            }
        } catch (IOException | RuntimeException e) {
            clientGone = true;
            interruptCommand();
        } finally {
            input.add(new byte[0]);
        }
    }

    private synchronized void interruptCommand() {
        if (command != null) {
            command.interrupt();
        }
    }

    private PrintWriter writer(byte stream) {
        OutputStream frames = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (len == 0 || clientGone) {
                    return;
                }
                CliProtocol.write(out, stream, b, off, len);
            }
        };
        return new PrintWriter(new OutputStreamWriter(frames, StandardCharsets.UTF_8));
    }

    /** The caller's stdin, fetched a request at a time so that only what the command reads is taken. */
    private final class ClientInput extends InputStream {
        private byte[] chunk = new byte[0];
        private int pos;
        private boolean eof;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos == chunk.length) {
                if (eof || clientGone) {
                    return -1;
                }
                CliProtocol.write(out, CliProtocol.NEED_INPUT, CliProtocol.number(Math.max(len, 8192)));
                try {
                    chunk = input.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while reading standard input");
                }
                pos = 0;
                if (chunk.length == 0) {
                    eof = true;
                    return -1;
                }
            }
            int n = Math.min(len, chunk.length - pos);
            System.arraycopy(chunk, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
