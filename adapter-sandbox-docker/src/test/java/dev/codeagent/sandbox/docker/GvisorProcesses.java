package dev.codeagent.sandbox.docker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The processes inside gVisor sandboxes, as gVisor's own kernel lists them ({@code runsc ps}): under runsc the
 * program's processes never appear in the host's /proc, so a test that must see them running, or gone, asks here.
 */
final class GvisorProcesses {

    /** Where Docker keeps its OCI runtimes' state (runsc, registered as a runtime, uses runc's root). */
    private static final Path STATE = Path.of("/run/docker/runtime-runc/moby");

    private GvisorProcesses() {
    }

    /**
     * Every process other than the container's init (the supervisor, pid 1) in the running containers of the sandbox
     * instance {@code ownerId}, as "container-id pid command"; empty when there is none.
     */
    static List<String> beyondInit(String ownerId) throws IOException, InterruptedException {
        List<String> found = new ArrayList<>();
        for (String id : DockerTestSupport.containersOf(ownerId)) {
            for (String line : psUnlessRemoved(ownerId, id)) {
                String[] f = line.trim().split("\\s+");
                // UID PID PPID C TTY STIME TIME CMD
                if (f.length >= 8 && f[1].matches("\\d+") && !f[1].equals("1")) {
                    found.add(ContainerKeeper.shortId(id) + " " + f[1] + " " + f[7]);
                }
            }
        }
        return found;
    }

    /** {@link #beyondInit}, waited on for up to {@code grace} until it is empty; what is left then. */
    static List<String> leftAfter(String ownerId, java.time.Duration grace) {
        try {
            long deadline = System.nanoTime() + grace.toNanos();
            List<String> left = beyondInit(ownerId);
            while (!left.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
                left = beyondInit(ownerId);
            }
            return left;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing gVisor's processes", e);
        }
    }

    /**
     * {@link #ps}, where a container removed between the listing and the look (runsc's state file already gone) has
     * nothing left to list; one that is still there and still cannot be listed is an error.
     */
    private static List<String> psUnlessRemoved(String ownerId, String id) throws IOException, InterruptedException {
        try {
            return ps(id);
        } catch (IOException e) {
            Thread.sleep(100);
            if (!DockerTestSupport.containersOf(ownerId).contains(id)) {
                return List.of();
            }
            return ps(id);
        }
    }

    private static List<String> ps(String id) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("runsc", "--root", STATE.toString(), "ps", id).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("runsc ps " + id + " did not answer");
        }
        if (p.exitValue() != 0) {
            // a container that ended meanwhile (or one runsc does not run) has no processes to list; nor has one
            // being removed after its run (stopped) or one of the pool not yet started (created)
            if (out.contains("does not exist") || out.contains("in state stopped") || out.contains("in state created")
                    || !Files.isDirectory(STATE)) {
                return List.of();
            }
            throw new IOException("runsc ps " + id + " failed: " + out.strip());
        }
        return out.lines().skip(1).toList();
    }
}
