package dev.codeagent.cli.daemon;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.sandbox.ChannelStreams;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * <p>Only the user who runs it can use it: the socket lives in a directory that must be the user's own
 * and closed to everyone else (0700; the server refuses to start otherwise), the socket itself is 0600,
 * and every connection's peer is checked with {@code SO_PEERCRED}, so another uid is refused even if
 * someone loosened the permissions. It runs as the user who started it, with nothing the command line
 * would not have.
 *
 * <p>It stops after an idle time with no call, and when the jar it was started from changes (a new
 * build: the launcher starts a fresh one), after the calls under way have finished.
 */
public final class CliServer implements AutoCloseable {

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private final Path socket;
    private final String build;
    private final ServerSocketChannel server;
    private final UserPrincipal owner;
    private final Function<CodeAgentConfig, CodeAgent> agents;
    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "codeagent-call");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger active = new AtomicInteger();
    private volatile long lastActivity = System.nanoTime();
    private volatile boolean closed;
    private final Object socketKey;

    /**
     * Binds the socket; the directory it is in must belong to this user and be closed to everyone else.
     *
     * @throws IOException when the directory is not private or the socket cannot be bound
     */
    public CliServer(Path socket, String build, Function<CodeAgentConfig, CodeAgent> agents) throws IOException {
        this.socket = socket.toAbsolutePath();
        this.build = build;
        this.agents = agents;
        this.owner = Files.getOwner(Path.of("/proc/self"));
        requirePrivate(this.socket.getParent(), owner);
        // a socket file left by a crashed server: nobody answers on it (the launcher checked), replace it
        Files.deleteIfExists(this.socket);
        this.server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(this.socket));
        Files.setPosixFilePermissions(this.socket, PosixFilePermissions.fromString("rw-------"));
        this.socketKey = fileKey(this.socket);
    }

    private static Object fileKey(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /** @throws IOException naming the directory when it is not this user's alone */
    static void requirePrivate(Path dir, UserPrincipal owner) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a directory");
        }
        if (!Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).equals(owner)) {
            throw new IOException(dir + " belongs to " + Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName() + ", not to " + owner.getName());
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (!perms.equals(PRIVATE)) {
            throw new IOException(dir + " has permissions " + PosixFilePermissions.toString(perms) + "; it must be rwx------ (0700)");
        }
    }

    /** Accepts and serves calls until closed. */
    public void serve() {
        while (!closed) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                continue;
            }
            if (!fromOwner(ch)) {
                closeQuietly(ch);
                continue;
            }
            active.incrementAndGet();
            lastActivity = System.nanoTime();
            calls.execute(() -> {
                try (ch) {
                    new CliCall(input(ch), output(ch), build, agents).serve();
                } catch (IOException e) {
                    // closing a connection the client already closed
                } finally {
                    lastActivity = System.nanoTime();
                    active.decrementAndGet();
                }
            });
        }
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

    /** Stops accepting and removes the socket; calls under way finish. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        // only our own socket: a server for a newer build may have bound the same path meanwhile
        Object key = fileKey(socket);
        if (key != null && key.equals(socketKey)) {
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                // the directory went away; nothing left to clean
            }
        }
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
     * {@code CliServer --socket PATH --jar PATH --build ID --idle SECONDS}, started by the launcher in
     * the background. Writes {@code PATH.info} ("pid build") once it listens.
     */
    public static void main(String[] args) throws Exception {
        Path socket = null;
        Path jar = null;
        String build = null;
        long idleSeconds = 3 * 3600;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--socket" -> socket = Path.of(args[i + 1]);
                case "--jar" -> jar = Path.of(args[i + 1]);
                case "--build" -> build = args[i + 1];
                case "--idle" -> idleSeconds = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (socket == null || jar == null || build == null) {
            System.err.println("usage: CliServer --socket PATH --jar PATH --build ID [--idle SECONDS]");
            System.exit(2);
        }
        WarmSandboxes sandboxes = new WarmSandboxes();
        CliServer server;
        try {
            server = new CliServer(socket, build, sandboxes);
        } catch (IOException e) {
            System.err.println("codeagent: background process not started: " + e.getMessage());
            System.exit(1);
            return;
        }
        Path info = Path.of(socket + ".info");
        Path tmp = Path.of(socket + ".info." + ProcessHandle.current().pid());
        Files.writeString(tmp, ProcessHandle.current().pid() + " " + build + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, info, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

        Thread serving = new Thread(server::serve, "codeagent-accept");
        serving.start();
        Path jarFile = jar;
        String started = build;
        long idleLimit = idleSeconds;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server, sandboxes, info), "codeagent-stop"));
        // stop when idle too long, or as soon as the build changes (after the calls under way)
        while (true) {
            Thread.sleep(1000);
            boolean rebuilt;
            try {
                rebuilt = !buildId(jarFile).equals(started);
            } catch (IOException | UncheckedIOException e) {
                rebuilt = true;
            }
            if (rebuilt || (server.active() == 0 && server.idle().toSeconds() >= idleLimit)) {
                break;
            }
        }
        System.exit(0);
    }

    private static void stop(CliServer server, WarmSandboxes sandboxes, Path info) {
        server.close();
        try {
            if (Files.readString(info).startsWith(ProcessHandle.current().pid() + " ")) {
                Files.deleteIfExists(info);
            }
        } catch (IOException e) {
            // a newer server's file, or none
        }
        try {
            server.awaitCalls(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sandboxes.close();
    }
}
