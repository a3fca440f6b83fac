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
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
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
 * build: the launcher starts a fresh one), after the calls under way have finished.
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

    /** How long a new server waits for the lock of one that is stopping (a previous build notices within a second). */
    private static final Duration LOCK_WAIT = Duration.ofSeconds(5);
    /** Accepts per turn of the selector, so that requests already sent are read between bursts of connections. */
    private static final int ACCEPTS_PER_TURN = 16;
    private static final int INITIAL_BUFFER = 512;

    private final Path socket;
    private final Path lockFile;
    private final String build;
    private final String environment;
    private final Limits limits;
    private final ServerSocketChannel server;
    private final FileChannel lockChannel;
    private final FileLock lock;
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
    private final Object socketKey;
    private final Object lockKey;

    /** Binds the socket with the default limits, serving callers of this process's own environment. */
    public CliServer(Path socket, String build, Function<CodeAgentConfig, CodeAgent> agents) throws IOException {
        this(socket, build, agents, Limits.defaults(), CallerEnvironment.current());
    }

    /**
     * Takes the socket's lock, then binds the socket; the directory it is in must be a {@link PrivateDirectory}.
     *
     * @param environment the {@link CallerEnvironment} callers must have to be served
     * @throws AlreadyServed when another live server holds the lock
     * @throws IOException when the directory is not private or the socket cannot be bound
     */
    CliServer(Path socket, String build, Function<CodeAgentConfig, CodeAgent> agents, Limits limits, String environment)
            throws IOException {
        this.socket = socket.toAbsolutePath().normalize();
        this.lockFile = Path.of(this.socket + ".lock");
        this.build = build;
        this.agents = agents;
        this.limits = limits;
        this.environment = environment;
        this.owner = Files.getOwner(Path.of("/proc/self"));
        PrivateDirectory.ensure(this.socket.getParent());
        this.lockChannel = PrivateDirectory.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = null;
        try {
            held = takeLock(lockChannel);
            if (held == null) {
                throw new AlreadyServed("another background process serves " + this.socket);
            }
            this.lock = held;
            this.lockKey = fileKey(lockFile);
            // a socket file left by a dead server (we hold the lock, so nobody serves it): replace it
            Files.deleteIfExists(this.socket);
            this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(this.socket), 64);
            Files.setPosixFilePermissions(this.socket, PosixFilePermissions.fromString("rw-------"));
            this.socketKey = fileKey(this.socket);
        } catch (IOException | RuntimeException e) {
            closeQuietly(lockChannel);
            throw e;
        }
        this.calls = new ThreadPoolExecutor(0, limits.maxCalls(), 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "codeagent-call");
            t.setDaemon(true);
            return t;
        });
    }

    private static FileLock takeLock(FileChannel ch) throws IOException {
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        while (true) {
            try {
                FileLock l = ch.tryLock();
                if (l != null) {
                    return l;
                }
            } catch (OverlappingFileLockException e) {
                // held by another server in this JVM: the same answer as another process's lock
            }
            if (System.nanoTime() > deadline) {
                return null;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }

    private static Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether the socket and lock files at this server's paths are still the ones it made. */
    boolean stillOwnsItsPaths() {
        return socketKey != null && socketKey.equals(fileKey(socket)) && lockKey != null && lockKey.equals(fileKey(lockFile));
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
        closeQuietly(server);
        // only our own socket: nobody else can have bound it while we hold the lock, unless it was removed under us
        Object key = fileKey(socket);
        if (key != null && key.equals(socketKey)) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                // the directory went away; nothing left to clean
            }
        }
        // last: a successor takes the lock, then replaces the socket
        closeQuietly(lock);
        closeQuietly(lockChannel);
        calls.shutdown();
    }

    /** Waits for the calls under way to finish. */
    boolean awaitCalls(Duration timeout) throws InterruptedException {
        return calls.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }

    /** The launcher's build id for a jar: its modification time in seconds and its size ({@code stat -c %Y-%s}). */
    static String buildId(Path jar) throws IOException {
        return Files.getLastModifiedTime(jar).to(TimeUnit.SECONDS) + "-" + Files.size(jar);
    }

    /**
     * {@code CliServer --socket PATH --jar PATH --build ID [--idle SECONDS] [--max-request-bytes N]}, started by the
     * launcher in the background. Writes {@code PATH.info} ("pid build", then the environment it serves) once it
     * listens; exits at once, status 0, when another live process already serves the socket.
     */
    public static void main(String[] args) throws Exception {
        Path socket = null;
        Path jar = null;
        String build = null;
        long idleSeconds = 3 * 3600;
        Limits limits = Limits.defaults();
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--socket" -> socket = Path.of(args[i + 1]);
                case "--jar" -> jar = Path.of(args[i + 1]);
                case "--build" -> build = args[i + 1];
                case "--idle" -> idleSeconds = Long.parseLong(args[i + 1]);
                case "--max-request-bytes" -> limits = limits.withMaxRequestBytes(Long.parseLong(args[i + 1]));
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (socket == null || jar == null || build == null) {
            System.err.println("usage: CliServer --socket PATH --jar PATH --build ID [--idle SECONDS] [--max-request-bytes N]");
            System.exit(2);
        }
        String environment = CallerEnvironment.current();
        WarmSandboxes sandboxes = new WarmSandboxes();
        CliServer server;
        try {
            server = new CliServer(socket, build, sandboxes, limits, environment);
        } catch (AlreadyServed e) {
            System.err.println("codeagent: background process not started: " + e.getMessage());
            System.exit(0);
            return;
        } catch (IOException e) {
            System.err.println("codeagent: background process not started: " + e.getMessage());
            System.exit(1);
            return;
        }
        long pid = ProcessHandle.current().pid();
        Path info = Path.of(server.socket + ".info");
        Path tmp = Path.of(server.socket + ".info." + pid);
        try (FileChannel ch = PrivateDirectory.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap((pid + " " + build + "\n" + environment).getBytes(StandardCharsets.UTF_8)));
        }
        Files.move(tmp, info, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Object infoKey = fileKey(info);

        Thread serving = new Thread(server::serve, "codeagent-accept");
        serving.start();
        Path jarFile = jar;
        String started = build;
        long idleLimit = idleSeconds;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server, sandboxes, info, infoKey), "codeagent-stop"));
        // stop when idle too long, as soon as the build changes (after the calls under way), when another process
        // took over our socket or lock file (someone removed them), and soon once callers of another environment
        // want one of their own
        while (true) {
            Thread.sleep(1000);
            boolean rebuilt;
            try {
                rebuilt = !buildId(jarFile).equals(started);
            } catch (IOException | UncheckedIOException e) {
                rebuilt = true;
            }
            String why = rebuilt ? "the build changed"
                    : !server.stillOwnsItsPaths() ? "its socket or lock file was replaced"
                    : server.active() == 0 && server.idle().toSeconds() >= idleLimit ? null
                    : server.idleForAnother() ? "callers from another environment want their own" : "";
            if (why == null || !why.isEmpty()) {
                if (why != null) {
                    System.err.println("codeagent: background process " + pid + " stops: " + why);
                }
                break;
            }
        }
        System.exit(0);
    }

    private static void stop(CliServer server, WarmSandboxes sandboxes, Path info, Object infoKey) {
        server.close();
        Object key = fileKey(info);
        if (key != null && key.equals(infoKey)) {
            try {
                Files.deleteIfExists(info);
            } catch (IOException e) {
                // the directory went away
            }
        }
        try {
            server.awaitCalls(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sandboxes.close();
    }
}
