package dev.codeagent.application.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Looks at the host from outside a sandbox: which processes are alive (by a marker planted in their
 * argv), and plants decoy processes for programs to attack. Shared by every tier's attack tests.
 */
public final class HostProbe {

    private HostProbe() {
    }

    /** A fresh marker that no other process on the host carries. */
    public static String marker(String purpose) {
        return "codeagent-" + purpose + "-" + UUID.randomUUID().toString().replace("-", "");
    }

    /** Pids of live (non-zombie) processes whose argv contains the marker, found by scanning /proc. */
    public static List<Long> processesWithArg(String marker) {
        List<Long> found = new ArrayList<>();
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path dir : dirs) {
                byte[] cmdline;
                try {
                    cmdline = Files.readAllBytes(dir.resolve("cmdline"));
                } catch (IOException gone) {
                    continue;
                }
                if (indexOf(cmdline, needle) >= 0) {
                    found.add(Long.parseLong(dir.getFileName().toString()));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot scan /proc: " + e.getMessage(), e);
        }
        found.remove(ProcessHandle.current().pid());
        return found;
    }

    /**
     * Waits at most {@code within} for a process carrying the marker to appear (a run started in the background); its
     * pids, or empty when none came.
     */
    public static List<Long> awaitProcessWithArg(String marker, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        List<Long> found = processesWithArg(marker);
        while (found.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            found = processesWithArg(marker);
        }
        return found;
    }

    /**
     * Pids still carrying the marker after waiting at most {@code grace}; empty when all are gone.
     * A grace of zero checks once.
     */
    public static List<Long> survivors(String marker, Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        List<Long> alive = processesWithArg(marker);
        while (!alive.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            alive = processesWithArg(marker);
        }
        return alive;
    }

    /** Starts a harmless host process ({@code sh -c 'sleep N'}) carrying the marker in its argv. */
    public static Process startDecoy(String marker, Duration lifetime) throws IOException {
        return new ProcessBuilder("/bin/sh", "-c", "sleep " + Math.max(1, lifetime.toSeconds()), marker)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
