package dev.codeagent.cli.daemon;

import dev.codeagent.application.host.PrivateDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The background process around a {@link CliServer} (whose {@code main} it is, the class the launcher names): its
 * command line, the {@code SOCKET.info} file that says it listens, and when it stops (idle, a new build, its socket
 * taken, callers of another environment). The server serves calls; this decides how long the process lives.
 */
final class BackgroundProcess {

    private BackgroundProcess() {
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
        CliServer.Limits limits = CliServer.Limits.defaults();
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
        } catch (CliServer.AlreadyServed e) {
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
        Object infoKey = SocketClaim.fileKey(info);

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
        Object key = SocketClaim.fileKey(info);
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
