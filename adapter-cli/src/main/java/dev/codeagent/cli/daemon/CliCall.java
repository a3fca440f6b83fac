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

    private final DataInputStream in;
    private final OutputStream out;
    private final String build;
    private final Function<dev.codeagent.application.config.CodeAgentConfig, dev.codeagent.application.CodeAgent> agents;
    /**
     * Stdin chunks not yet read by the command. Bounded: a client sends one when asked, and one that floods
     * unasked stalls on its own socket instead of filling this process's memory.
     */
    private final BlockingQueue<byte[]> input = new LinkedBlockingQueue<>(4);
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


    /** What a client asked for; {@code environment} is its {@link CallerEnvironment} (null: it did not say). */
    record Request(String build, String environment, Path cwd, Map<String, String> env, List<String> args, boolean interactive,
                   boolean stdinTerminal) {
        Request(String build, String environment, Path cwd, Map<String, String> env, List<String> args, boolean interactive) {
            this(build, environment, cwd, env, args, interactive, interactive);
        }
    }

    /** A request refused before anything ran; the message is the one line the client shows. */
    static final class BadRequest extends IOException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    /**
     * Assembles a request from its frames as they arrive, counting its bytes against the cap on a whole request
     * (every frame's header and payload): the background process reads requests of many clients at once on one
     * thread, a frame at a time.
     */
    static final class RequestParser {
        private final long maxBytes;
        private long bytes;
        private String build;
        private String environment;
        private Path cwd;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final List<String> args = new ArrayList<>();

        RequestParser(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        /** Counts a frame's length before its payload is read, so that an oversized one is refused unread. */
        void announce(int length) throws BadRequest {
            if (length < 0 || bytes + 5 + (long) length > maxBytes) {
                throw new BadRequest("request of more than " + maxBytes + " bytes (arguments and environment) refused;"
                        + " unset large environment variables or raise CODEAGENT_DAEMON_MAX_REQUEST");
            }
            bytes += 5 + (long) length;
        }

        /** The request once its last frame came, else null. */
        Request frame(CliProtocol.Frame f) throws BadRequest {
            if (build == null) {
                if (f.type() != CliProtocol.HELLO) {
                    throw new BadRequest("expected a handshake, got frame '" + (char) f.type() + "'");
                }
                String[] words = f.text().split(" ", 2);
                if (!words[0].equals(CliProtocol.VERSION) || words.length < 2) {
                    throw new BadRequest("it speaks " + CliProtocol.VERSION + ", not '" + words[0] + "'");
                }
                build = words[1];
                return null;
            }
            switch (f.type()) {
                case CliProtocol.ENVIRONMENT -> environment = f.text();
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
                        throw new BadRequest("no absolute working directory in the request");
                    }
                    int flags = f.payload().length > 0 ? f.payload()[0] : 0;
                    return new Request(build, environment, cwd, env, args, (flags & 1) != 0, (flags & 2) != 0);
                }
                default -> throw new BadRequest("unexpected frame '" + (char) f.type() + "' in a request");
            }
            return null;
        }
    }

    /** Reads the request up to its end from a stream (one client, its own thread), within the size cap. */
    static Request readRequest(DataInputStream in, long maxBytes) throws IOException {
        RequestParser parser = new RequestParser(maxBytes);
        while (true) {
            int type = in.read();
            if (type < 0) {
                throw new java.io.EOFException("connection closed");
            }
            int length = in.readInt();
            parser.announce(length);
            if (length > CliProtocol.MAX_FRAME) {
                throw new BadRequest("frame of " + length + " bytes refused");
            }
            byte[] payload = new byte[length];
            in.readFully(payload);
            Request r = parser.frame(new CliProtocol.Frame((byte) type, payload));
            if (r != null) {
                return r;
            }
        }
    }

    /**
     * Reads the request, answers the handshake and serves the call to its end, for a client on a stream of its
     * own (the background process does the handshake itself and calls {@link #run}). Never throws.
     */
    void serve() {
        Request request;
        try {
            request = readRequest(in, CliServer.Limits.DEFAULT_MAX_REQUEST);
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
        run(request);
    }

    /** Runs an accepted request whose client said go, to its end. Never throws. */
    void run(Request request) {
        // a pooled thread: nothing of an earlier call may reach this one (an interrupt would close the channel)
        Thread.interrupted();
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
            CliContext context = new CliContext(new ClientInput(), request.env(), request.interactive(), request.cwd(), agents, false,
                    request.stdinTerminal());
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
                    input.put(f.payload());
                } else if (f.type() == CliProtocol.SIGNAL) {
                    interruptCommand();
                }
            }
        } catch (IOException | RuntimeException | InterruptedException e) {
            clientGone = true;
            interruptCommand();
        } finally {
            // the end of input, in place of whatever the command will no longer read
            while (!input.offer(new byte[0])) {
                input.poll();
            }
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
