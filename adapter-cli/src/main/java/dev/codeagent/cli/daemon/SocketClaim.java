package dev.codeagent.cli.daemon;

import dev.codeagent.application.host.PrivateDirectory;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * A {@link CliServer}'s hold on its socket path: the lock on {@code SOCKET.lock}, taken before the socket is bound and
 * given up last, so one server serves a path for its whole life; and the files it made there, so that it can tell when
 * someone replaced them. Split from the server, which reads and runs the calls that arrive on the socket.
 */
final class SocketClaim implements AutoCloseable {

    /** How long a new server waits for the lock of one that is stopping (a previous build notices within a second). */
    private static final Duration LOCK_WAIT = Duration.ofSeconds(5);

    final Path socket;
    private final Path lockFile;
    final ServerSocketChannel server;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Object socketKey;
    private final Object lockKey;

    /**
     * Takes the socket's lock, then binds the socket; the directory it is in must be a {@link PrivateDirectory}.
     *
     * @throws CliServer.AlreadyServed when another live server holds the lock
     * @throws IOException when the directory is not private or the socket cannot be bound
     */
    SocketClaim(Path socket) throws IOException {
        this.socket = socket.toAbsolutePath().normalize();
        this.lockFile = Path.of(this.socket + ".lock");
        PrivateDirectory.ensure(this.socket.getParent());
        this.lockChannel = PrivateDirectory.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock held = null;
        try {
            held = takeLock(lockChannel);
            if (held == null) {
                throw new CliServer.AlreadyServed("another background process serves " + this.socket);
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
            CliServer.closeQuietly(lockChannel);
            throw e;
        }
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

    static Object fileKey(Path file) {
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

    /** Stops accepting, removes the socket if it is still ours and gives up the lock. */
    @Override
    public void close() {
        CliServer.closeQuietly(server);
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
        CliServer.closeQuietly(lock);
        CliServer.closeQuietly(lockChannel);
    }
}
