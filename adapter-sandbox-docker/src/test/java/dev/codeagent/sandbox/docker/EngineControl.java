package dev.codeagent.sandbox.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stops and starts the local Docker engine for the engine-fault test: SIGTERM to the pid in
 * {@code /var/run/docker.pid} (what {@code systemctl stop docker} does; SIGKILL if it lingers), then
 * {@code systemctl start docker} when systemd runs the engine, else a detached {@code dockerd}
 * logging to {@code /tmp/dockerd.log}. (A SIGKILLed dockerd 20.10 can leave an orphaned
 * containerd-shim behind on the host, which is the engine's leak, not the test's; so the test stops
 * it the way an administrator or a package upgrade would.)
 */
final class EngineControl {

    private static final Path PID_FILE = Path.of("/var/run/docker.pid");

    private EngineControl() {
    }

    /** Why this machine's engine cannot be restarted by a test, or empty when it can. */
    static Optional<String> whyNotRestartable() {
        String host = System.getenv("DOCKER_HOST");
        if (host != null && !host.isBlank() && !host.equals("unix:///var/run/docker.sock")) {
            return Optional.of("DOCKER_HOST points at another engine (" + host + ")");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("restarting the engine needs root");
        }
        if (enginePid().isEmpty()) {
            return Optional.of("no running dockerd found through " + PID_FILE);
        }
        return Optional.empty();
    }

    static Optional<ProcessHandle> enginePid() {
        try {
            long pid = Long.parseLong(Files.readString(PID_FILE).trim());
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Stops the engine and waits until it is gone. */
    static void stop() throws InterruptedException {
        ProcessHandle engine = enginePid().orElseThrow(() -> new IllegalStateException("no dockerd to stop"));
        engine.destroy();
        try {
            engine.onExit().get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            engine.destroyForcibly();
            try {
                engine.onExit().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException again) {
                throw new IllegalStateException("dockerd " + engine.pid() + " did not stop", again);
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("dockerd " + engine.pid() + " did not stop", e);
        }
    }

    /** Starts the engine unless it answers already, and waits (bounded) until it answers. */
    static boolean start(Duration timeout) throws InterruptedException, IOException {
        if (answers()) {
            return true;
        }
        if (systemdManaged()) {
            new ProcessBuilder("systemctl", "start", "docker").inheritIO().start().waitFor(60, TimeUnit.SECONDS);
        } else if (enginePid().isEmpty()) {
            String log = System.getenv().getOrDefault("CODEAGENT_DOCKERD_LOG", "/tmp/dockerd.log");
            new ProcessBuilder("/bin/sh", "-c", "setsid dockerd >>'" + log + "' 2>&1 </dev/null &")
                    .redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (answers()) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    static boolean answers() {
        try (DockerEngine engine = DockerTestSupport.engine()) {
            engine.ping();
            return true;
        } catch (EngineFailure e) {
            return false;
        }
    }

    private static boolean systemdManaged() {
        try {
            return Files.isDirectory(Path.of("/run/systemd/system"))
                    && new ProcessBuilder("systemctl", "cat", "docker.service").start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
