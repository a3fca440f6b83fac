package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A throwaway PostgreSQL cluster for the tests, one per JVM: Debian's {@code postgresql} binaries,
 * {@code initdb} into a temp dir owned by a non-root user (the {@code postgres} system user when the
 * tests run as root, since the server refuses root), listening on a free loopback port. Each test gets
 * a database of its own. Without the binaries the tests are skipped on a developer machine and fail
 * under {@code CI=true}; the cluster is stopped and removed when the JVM exits.
 *
 * <p>The superuser has a random password of this cluster's own (SCRAM for TCP and the socket alike) and the
 * unix socket sits in the cluster's {@code 0700} directory: a superuser session runs commands as the server's
 * OS user ({@code COPY ... TO PROGRAM}) and sees every test's data, so another local user reaching the loopback
 * port must not get one. Configs handed to child processes carry the password and are written {@code 0600}
 * ({@link #writePrivate}) into the test's private temp dir.
 */
public final class TestCluster {

    static final String SUPERUSER = "codeagent";

    private static TestCluster shared;
    private static String unavailable;

    private final Path bin;
    private final Path dir;
    private final int port;
    private final String runAs; // null: as ourselves
    private final String password;
    private final AtomicInteger databases = new AtomicInteger();

    private TestCluster(Path bin, Path dir, int port, String runAs, String password) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.runAs = runAs;
        this.password = password;
    }

    /** The shared cluster, started on first use; skips (or under CI fails) the test when it cannot be. */
    public static synchronized TestCluster get() {
        if (shared == null && unavailable == null) {
            try {
                shared = start();
            } catch (IOException | RuntimeException e) {
                unavailable = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                unavailable = "interrupted";
            }
        }
        if (shared == null) {
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail("CI=true but PostgreSQL cannot be started for the tests: " + unavailable);
            }
            Assumptions.abort("postgres tests skipped: " + unavailable);
        }
        return shared;
    }

    int port() {
        return port;
    }

    /** The superuser's password. */
    public String password() {
        return password;
    }

    /** Where the server's unix socket is. */
    Path socketDirectory() {
        return dir;
    }

    /** A program of the server's installation (psql, pg_dump, ...). */
    Path binary(String name) {
        return bin.resolve(name);
    }

    String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** A new empty database, with the store's settings pointing at it. */
    public PostgresStoreConfig freshDatabase() {
        String name = "t" + databases.incrementAndGet();
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), SUPERUSER, password);
             Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name + ": " + e.getMessage(), e);
        }
        return new PostgresStoreConfig(jdbcUrl(name), SUPERUSER, password, 8, Duration.ofMillis(200), Duration.ofMillis(1000),
                PostgresStoreConfig.LeaseLoss.TAKEOVER);
    }

    /** Stops the server (fast: sessions are cut as in a crash of the clients' view) and starts it again. */
    void restart(Duration down) throws IOException, InterruptedException {
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "stop"));
        Thread.sleep(down.toMillis());
        startServer();
    }

    private static TestCluster start() throws IOException, InterruptedException {
        Path bin = findBinaries();
        if (bin == null) {
            throw new IllegalStateException("no PostgreSQL server binaries (install Debian's postgresql)");
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        String runAs = root ? "postgres" : null;
        // 0700 (createTempDirectory's default): it holds the password file and the unix socket
        Path dir = Files.createTempDirectory("codeagent-pg-");
        String password = HexFormat.of().formatHex(randomBytes(32));
        // written while the directory is still ours alone, then handed over: initdb reads it as the server user
        Path pwfile = writePrivate(dir.resolve("pwfile"), password + "\n");
        if (runAs != null) {
            exec(List.of("chown", runAs, pwfile.toString(), dir.toString()), Duration.ofSeconds(10));
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        TestCluster cluster = new TestCluster(bin, dir, port, runAs, password);
        try {
            cluster.run(List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", SUPERUSER,
                    "--pwfile=" + pwfile, "--auth=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"));
        } finally {
            cluster.run(List.of("rm", "-f", pwfile.toString()));
        }
        cluster.startServer();
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::destroy));
        return cluster;
    }

    private void startServer() throws IOException, InterruptedException {
        String options = "-c listen_addresses=127.0.0.1 -p " + port + " -c unix_socket_directories=" + dir
                + " -c fsync=off -c max_connections=300";
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
                dir.resolve("server.log").toString(), "-o", options, "-w", "-t", "60", "start"));
    }

    /**
     * Writes {@code text} to a new file that only its owner can read ({@code 0600}), for a config carrying the
     * cluster's password; put it in a directory of the test's own (a JUnit {@code @TempDir} is {@code 0700}).
     * An existing file or link there is an error, never followed.
     */
    public static Path writePrivate(Path file, String text) throws IOException {
        try (var out = Files.newOutputStream(Files.createFile(file,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))),
                StandardOpenOption.WRITE)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
        return file;
    }

    private void destroy() {
        try {
            run(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop"));
        } catch (IOException | RuntimeException e) {
            // already stopped
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (runAs != null) {
            // the tree is the server user's: it empties it itself, as root walking a tree another uid can change
            // while it walks could be steered by a swapped link into deleting outside it
            try {
                run(List.of("find", dir.toString(), "-mindepth", "1", "-delete"));
                Files.deleteIfExists(dir);
            } catch (IOException | RuntimeException e) {
                // a temp dir left behind
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind
        }
    }

    private void run(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (runAs != null) {
            full.addAll(List.of("runuser", "-u", runAs, "--"));
        }
        full.addAll(command);
        exec(full, Duration.ofSeconds(90));
    }

    private static void exec(List<String> command, Duration timeout) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).directory(Path.of("/tmp").toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " timed out");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + new String(out, StandardCharsets.UTF_8).trim());
        }
    }

    private static Path findBinaries() throws IOException {
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Path best = versions.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("pg_ctl")) && Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparing(b -> b.getParent().getFileName().toString(),
                                Comparator.comparingInt(TestCluster::versionNumber)))
                        .orElse(null);
                if (best != null) {
                    return best;
                }
            }
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path b = Path.of(dir);
            if (!dir.isEmpty() && Files.isExecutable(b.resolve("pg_ctl")) && Files.isExecutable(b.resolve("initdb"))) {
                return b;
            }
        }
        return null;
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
    }

    private static int versionNumber(String name) {
        try {
            return Integer.parseInt(name.replaceAll("\\..*", ""));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
