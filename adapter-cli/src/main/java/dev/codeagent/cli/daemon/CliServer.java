package dev.codeagent.cli.daemon;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.sandbox.ChannelStreams;
import dev.codeagent.application.host.PrivateDirectory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The command line's warm background process (like Gradle's daemon, Bazel's server, Nailgun): serves
 * commands handed over by {@code codeagent-client} on a Unix socket, each on its own thread, each with
 * the caller's config, environment and directory.
 *
 * <p>Only the user who runs it can use it: the socket lives in a {@link PrivateDirectory} (this user's, 0700,
 * no ancestor another user could write; the server refuses to start otherwise), the socket itself is 0600,
 * and every connection's peer is checked with {@code SO_PEERCRED}, so another uid is refused even if
 * someone loosened the permissions. It runs as the user who started it, with nothing the command line
 * would not have.
 *
 * <p>One per socket, for its whole life: it holds a lock on {@code SOCKET.lock} from before it binds until it
 * has stopped accepting, so a second one started for the same socket (a race, a caller that thought it dead)
 * waits briefly for it and exits; and it stops as soon as the socket or lock file at its path is no longer the
 * one it made. Liveness is asked of the socket (a ping), never of a pid, which another pid namespace cannot see.
 *
 * <p>Bounded against its own user's clients: requests are read by one selector thread, not a thread per
 * connection, so an idle connection costs a descriptor and a small buffer; a connection that has not sent its
 * whole request and said go within {@link Limits#handshake} is closed; a request bigger than
 * {@link Limits#maxRequestBytes} is refused in one line; at most {@link Limits#maxPending} connections wait
 * (beyond that the oldest waiting one is closed with a one-line refusal: a real client sends its request at
 * once) and at most {@link Limits#maxCalls} commands run at once (beyond that a call is refused, and the client
 * runs it in its own JVM). Threads: the selector, and two per command under way.
 *
 * <p>It serves only callers whose {@link CallerEnvironment} equals its own (see docs/cli.md): a call is never
 * served with less isolation than the caller's own JVM would get. Refusing a caller from another environment
 * shortens its idle time to {@link Limits#foreignIdle}, so that the environment that wants it gets its own soon.
 *
 * <p>It stops after an idle time with no call, and when the jar it was started from changes (a new
 * build: the launcher starts a fresh one), after the calls under way have finished ({@link BackgroundProcess}).
 *
 * <p>One class of ~500 lines: the selector's accept, read, expire and drop share the waiting connections and their
 * byte budget on one thread. The hold on the socket path ({@link SocketClaim}) and the process's life
 * ({@link BackgroundProcess}) are classes of their own.
 */
public final class CliServer implements AutoCloseable {

    /**
     * What a server allows its clients.
     *
     * @param handshake how long a connection may take from accept to sending go (or a ping)
     * @param maxRequestBytes the cap on one request (every frame of it, headers included)
     * @param maxPending connections whose request is still being read
     * @param maxCalls commands under way at once
     * @param pendingBudget bytes buffered for all requests being read together
     * @param foreignIdle idle time after which the server stops once a caller from another environment was refused
     */
    public record Limits(Duration handshake, long maxRequestBytes, int maxPending, int maxCalls, long pendingBudget,
                        Duration foreignIdle) {

        static final long DEFAULT_MAX_REQUEST = 1 << 20;

        public Limits {
            if (handshake.isNegative() || handshake.isZero() || maxRequestBytes < 64 || maxPending < 1 || maxCalls < 1
                    || pendingBudget < maxRequestBytes || foreignIdle.isNegative()) {
                throw new IllegalArgumentException("unusable limits for the background process: " + this);
            }
        }

        /** 5 s, 1 MiB, 128 waiting, 32 calls, 32 MiB buffered, 60 s. */
        public static Limits defaults() {
            return new Limits(Duration.ofSeconds(5), DEFAULT_MAX_REQUEST, 128, 32, 32L << 20, Duration.ofSeconds(60));
        }

        Limits withMaxRequestBytes(long bytes) {
            return new Limits(handshake, bytes, maxPending, maxCalls, Math.max(pendingBudget, bytes), foreignIdle);
        }
    }

    /** Another live server holds the socket's lock: this one is not needed. */
    public static final class AlreadyServed extends IOException {
        private static final long serialVersionUID = 1L;

        AlreadyServed(String message) {
            super(message);
        }
    }

    /** Accepts per turn of the selector, so that requests already sent are read between bursts of connections. */
    private static final int ACCEPTS_PER_TURN = 16;
    private static final int INITIAL_BUFFER = 512;

    private final SocketClaim claim;
    final Path socket;
    private final String build;
    private final String environment;
    private final Limits limits;
    private final ServerSocketChannel server;
    private final UserPrincipal owner;
    private final Function<CodeAgentConfig, CodeAgent> agents;
    private final ThreadPoolExecutor calls;
    private final AtomicInteger active = new AtomicInteger();
    private final Map<SocketChannel, Pending> pending = new LinkedHashMap<>();
    private long buffered;
    private volatile Selector selector;
    private volatile long lastActivity = System.nanoTime();
    /** When a caller from another environment was last refused (System.nanoTime), or 0. */
    private volatile long lastForeign;
    private volatile boolean closed;

    /** Binds the socket with the default limits, serving callers of this process's own environment. */
    public CliServer(Path socket, String build, Function<CodeAgentConfig, CodeAgent> agents) throws IOException {
        this(socket, build, agents, Limits.defaults(), CallerEnvironment.current());
    }

    /**
     * Takes the socket's lock, then binds the socket ({@link SocketClaim}); the directory it is in must be a
     * {@link PrivateDirectory}.
     *
     * @param environment the {@link CallerEnvironment} callers must have to be served
     * @throws AlreadyServed when another live server holds the lock
     * @throws IOException when the directory is not private or the socket cannot be bound
     */
    CliServer(Path socket, String build, Function<CodeAgentConfig, CodeAgent> agents, Limits limits, String environment)
            throws IOException {
        this.build = build;
        this.agents = agents;
        this.limits = limits;
        this.environment = environment;
        this.owner = Files.getOwner(Path.of("/proc/self"));
        this.claim = new SocketClaim(socket);
        this.socket = claim.socket;
        this.server = claim.server;
        this.calls = new ThreadPoolExecutor(0, limits.maxCalls(), 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "codeagent-call");
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether the socket and lock files at this server's paths are still the ones it made. */
    boolean stillOwnsItsPaths() {
        return claim.stillOwnsItsPaths();
    }

    /** A connection whose request is being read, on the selector's thread. */
    private static final class Pending {
        final SocketChannel channel;
        final long deadline;
        final CliCall.RequestParser parser;
        ByteBuffer buffer = ByteBuffer.allocate(INITIAL_BUFFER);
        CliCall.Request request;
        /** Whether the frame at the buffer's start was counted against the cap. */
        boolean announced;
        int frames;

        Pending(SocketChannel channel, long deadline, long maxRequest) {
            this.channel = channel;
            this.deadline = deadline;
            this.parser = new CliCall.RequestParser(maxRequest);
        }
    }

    /** Accepts and serves calls until closed. */
    public void serve() {
        try (Selector sel = Selector.open()) {
            selector = sel;
            server.configureBlocking(false);
            server.register(sel, SelectionKey.OP_ACCEPT);
            List<Pending> ready = new ArrayList<>();
            while (!closed) {
                long now = System.nanoTime();
                long wait = pending.isEmpty() ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(
                        pending.values().iterator().next().deadline - now) + 1);
                sel.select(wait);
                for (var it = sel.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        acceptSome(sel);
                    } else if (key.isReadable()) {
                        Pending p = (Pending) key.attachment();
                        if (read(p)) {
                            key.cancel();
                            ready.add(p);
                        }
                    }
                }
                expire();
                if (!ready.isEmpty()) {
                    // the cancelled keys leave the selector at its next select; only then can a channel block again
                    sel.selectNow();
                    ready.forEach(this::start);
                    ready.clear();
                }
            }
        } catch (ClosedChannelException | ClosedSelectorException e) {
            // closed
        } catch (IOException e) {
            if (!closed) {
                throw new UncheckedIOException(e);
            }
        } finally {
            for (Pending p : List.copyOf(pending.values())) {
                drop(p, null);
            }
        }
    }

    private void acceptSome(Selector sel) throws IOException {
        for (int i = 0; i < ACCEPTS_PER_TURN; i++) {
            SocketChannel ch = server.accept();
            if (ch == null) {
                return;
            }
            if (!fromOwner(ch)) {
                closeQuietly(ch);
                continue;
            }
            if (pending.size() >= limits.maxPending()) {
                // the longest waiting is the likeliest idle: a real client sends its whole request at once
                drop(pending.values().iterator().next(), "too many connections waiting (" + limits.maxPending()
                        + "); the oldest was closed");
            }
            ch.configureBlocking(false);
            Pending p = new Pending(ch, System.nanoTime() + limits.handshake().toNanos(), limits.maxRequestBytes());
            pending.put(ch, p);
            buffered += INITIAL_BUFFER;
            ch.register(sel, SelectionKey.OP_READ, p);
        }
    }

    /** Closes connections that did not complete their handshake in time. */
    private void expire() {
        long now = System.nanoTime();
        for (Pending p : List.copyOf(pending.values())) {
            if (now - p.deadline < 0) {
                return;
            }
            drop(p, "no whole request within " + limits.handshake().toMillis() + " ms");
        }
    }

    /**
     * Reads what the client sent and parses whole frames; answers the handshake when the request is complete.
     *
     * @return whether the client said go: the call can start
     */
    private boolean read(Pending p) {
        try {
            if (!p.buffer.hasRemaining()) {
                long grown = Math.min((long) p.buffer.capacity() * 2, limits.maxRequestBytes() + 5);
                if (grown <= p.buffer.capacity()) {
                    throw new CliCall.BadRequest("more than a request's " + limits.maxRequestBytes() + " bytes before go");
                }
                if (buffered + grown - p.buffer.capacity() > limits.pendingBudget()) {
                    drop(p, "busy: too many large requests being read at once");
                    return false;
                }
                ByteBuffer bigger = ByteBuffer.allocate((int) grown);
                p.buffer.flip();
                bigger.put(p.buffer);
                buffered += grown - p.buffer.capacity();
                p.buffer = bigger;
            }
            int n = p.channel.read(p.buffer);
            if (n < 0) {
                drop(p, null);
                return false;
            }
            p.buffer.flip();
            try {
                while (p.buffer.remaining() >= 5) {
                    int at = p.buffer.position();
                    byte type = p.buffer.get(at);
                    int length = p.buffer.getInt(at + 1);
                    if (p.request != null) {
                        // the request is answered: the only frame now is go (stdin and signals come after it)
                        if (type != CliProtocol.GO || length != 0) {
                            drop(p, null);
                            return false;
                        }
                        p.buffer.position(at + 5);
                        return true;
                    }
                    if (p.frames == 0 && type == CliProtocol.PING && length == 0) {
                        reply(p.channel, CliProtocol.PONG, build);
                        drop(p, null);
                        return false;
                    }
                    if (!p.announced) {
                        // counted when its header arrives: an oversized request is refused before its bytes are read
                        p.parser.announce(length);
                        if (length > CliProtocol.MAX_FRAME) {
                            throw new CliCall.BadRequest("frame of " + length + " bytes refused");
                        }
                        p.announced = true;
                    }
                    if (p.buffer.remaining() < 5 + length) {
                        break;
                    }
                    byte[] payload = new byte[length];
                    p.buffer.position(at + 5);
                    p.buffer.get(payload);
                    p.announced = false;
                    p.frames++;
                    CliCall.Request r = p.parser.frame(new CliProtocol.Frame(type, payload));
                    if (r != null) {
                        p.request = r;
                        String refusal = refusal(r);
                        if (refusal != null) {
                            drop(p, refusal);
                            return false;
                        }
                        reply(p.channel, CliProtocol.ACCEPTED, "");
                    }
                }
            } finally {
                p.buffer.compact();
            }
            return false;
        } catch (CliCall.BadRequest e) {
            drop(p, e.getMessage());
            return false;
        } catch (IOException | RuntimeException e) {
            drop(p, null);
            return false;
        }
    }

    /** Why this request is not served here, or null. */
    private String refusal(CliCall.Request r) {
        if (!r.build().equals(build)) {
            return "it runs another build of codeagent";
        }
        if (r.environment() == null) {
            return "the client did not say its environment (an older client?)";
        }
        List<String> differ = CallerEnvironment.differences(environment, r.environment());
        if (!differ.isEmpty()) {
            lastForeign = System.nanoTime();
            return "it was started in another environment (another " + String.join(", ", differ)
                    + ") and its sandbox may have less isolation than this one's";
        }
        if (active.get() >= limits.maxCalls()) {
            return "busy: " + limits.maxCalls() + " commands under way";
        }
        return null;
    }

    /** Hands an accepted connection whose client said go to a call thread. */
    private void start(Pending p) {
        if (pending.remove(p.channel) == null) {
            return; // expired in the same turn: already closed
        }
        buffered -= p.buffer.capacity();
        SocketChannel ch = p.channel;
        byte[] rest = new byte[p.buffer.position()];
        p.buffer.flip();
        p.buffer.get(rest);
        active.incrementAndGet();
        lastActivity = System.nanoTime();
        try {
            ch.configureBlocking(true);
            calls.execute(() -> {
                try (ch) {
                    InputStream in = new SequenceInputStream(new ByteArrayInputStream(rest), input(ch));
                    new CliCall(in, output(ch), build, agents).run(p.request);
                } catch (IOException e) {
                    // closing a connection the client already closed
                } finally {
                    lastActivity = System.nanoTime();
                    active.decrementAndGet();
                }
            });
        } catch (IOException | RejectedExecutionException e) {
            // more calls than threads: the count above raced past the check; the client runs it itself
            active.decrementAndGet();
            closeQuietly(ch);
        }
    }

    /** Closes a waiting connection, first telling the client why in one line when there is a reason. */
    private void drop(Pending p, String why) {
        if (pending.remove(p.channel) != null) {
            buffered -= p.buffer.capacity();
        }
        if (why != null) {
            try {
                reply(p.channel, CliProtocol.REFUSED, why);
            } catch (IOException | RuntimeException e) {
                // the client is gone
            }
        }
        closeQuietly(p.channel);
    }

    /** A small frame to a non-blocking channel: it fits in an empty socket buffer; a client that filled its own gets nothing. */
    private static void reply(SocketChannel ch, byte type, String text) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(5 + payload.length).put(type).putInt(payload.length).put(payload).flip();
        ch.write(frame);
    }

    /** The call's frames from the client; closing the stream leaves the channel to the call (its owner). */
    static InputStream input(SocketChannel ch) {
        return ChannelStreams.input(ch, false);
    }

    /** The call's frames to the client; as {@link #input}. */
    static OutputStream output(SocketChannel ch) {
        return ChannelStreams.output(ch, false);
    }

    /** Whether the peer process runs as this server's user; anything else is refused unanswered. */
    private boolean fromOwner(SocketChannel ch) {
        try {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            return peer.user().equals(owner);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** Calls being served now. */
    public int active() {
        return active.get();
    }

    /** How long since the last call started or ended. */
    Duration idle() {
        return Duration.ofNanos(System.nanoTime() - lastActivity);
    }

    /** Whether a caller from another environment was refused and no call of this one came since for {@link Limits#foreignIdle}. */
    boolean idleForAnother() {
        long foreign = lastForeign;
        return foreign != 0 && active() == 0 && idle().compareTo(limits.foreignIdle()) >= 0;
    }

    /** Stops accepting, removes the socket if it is still ours and gives up the lock; calls under way finish. */
    @Override
    public void close() {
        closed = true;
        Selector sel = selector;
        if (sel != null) {
            sel.wakeup();
        }
        claim.close();
        calls.shutdown();
    }

    /** Waits for the calls under way to finish. */
    boolean awaitCalls(Duration timeout) throws InterruptedException {
        return calls.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }

    /**
     * {@code CliServer --socket PATH --jar PATH --build ID [--idle SECONDS] [--max-request-bytes N]}, started by the
     * launcher in the background: see {@link BackgroundProcess}.
     */
    public static void main(String[] args) throws Exception {
        BackgroundProcess.main(args);
    }
}
