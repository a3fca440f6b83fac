package dev.codeagent.kit.sandbox;

import dev.codeagent.domain.session.SessionLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The bridge as a real, unsandboxed child of the test JVM, run by Debian's python3 (which has ipykernel):
 * tests the bridge and {@link BridgeSession} on their own, apart from any tier.
 */
final class LocalBridge implements BridgeSession.Channel {

    static final Path PYTHON = Path.of("/usr/bin/python3");
    final Process process;
    private final Path stderr;
    private final Path tmp;

    private LocalBridge() throws IOException {
        tmp = Files.createTempDirectory("bridge-test-");
        stderr = tmp.resolve("stderr");
        ProcessBuilder pb = new ProcessBuilder(PYTHON.toString(), "-I", "-c", BridgeSession.script())
                .directory(tmp.toFile()).redirectError(stderr.toFile());
        pb.environment().put("TMPDIR", tmp.toString());
        process = pb.start();
    }

    static BridgeSession open(SessionLimits limits) {
        try {
            return BridgeSession.start("local", limits, new LocalBridge());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the host can run a kernel at all (Debian's python3-ipykernel and python3-jupyter-client). */
    static boolean available() {
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-I", "-c", "import ipykernel, jupyter_client").start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public InputStream frames() {
        return process.getInputStream();
    }

    @Override
    public OutputStream commands() {
        return process.getOutputStream();
    }

    @Override
    public String diagnostics() {
        try {
            return Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void destroy() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var walk = Files.walk(tmp)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a test's temp directory
        }
    }
}
