package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds and kills host processes by what /proc says about them. Killing goes through
 * {@link ProcessHandle}, which checks the process start time, so a pid reused in between is not hit.
 */
final class HostProcesses {

    private static final Path PROC = Path.of("/proc");

    private HostProcesses() {
    }

    /**
     * Pids of live processes whose real, effective or saved uid is {@code uid}. Zombies are left out: they
     * run nothing and hold nothing but their pid until their parent reaps them (when a sandbox's parent
     * dies first, that is the host's init, which may take its time).
     */
    static List<Long> ofUid(long uid) {
        List<Long> found = new ArrayList<>();
        for (long pid : pids()) {
            try {
                for (String line : Files.readAllLines(PROC.resolve(Long.toString(pid)).resolve("status"), StandardCharsets.ISO_8859_1)) {
                    if (line.startsWith("State:") && isDead(line.substring(6).trim())) {
                        break;
                    }
                    if (line.startsWith("Uid:")) {
                        String[] f = line.substring(4).trim().split("\\s+");
                        for (int i = 0; i < Math.min(3, f.length); i++) {
                            if (Long.parseLong(f[i]) == uid) {
                                found.add(pid);
                                break;
                            }
                        }
                        break;
                    }
                }
            } catch (IOException | RuntimeException gone) {
                // exited while we looked
            }
        }
        return found;
    }

    /** Whether a process exists and is not a zombie. */
    static boolean alive(long pid) {
        return statFields(pid).map(f -> f.length > 0 && !isDead(f[0])).orElse(false);
    }

    private static boolean isDead(String state) {
        return state.startsWith("Z") || state.startsWith("X") || state.startsWith("x");
    }

    /** Whether any process, a zombie included, has {@code pid} as its parent. */
    static boolean hasChildren(long pid) {
        for (long p : pids()) {
            // after the ")" that ends the command name: state ppid ...
            if (statFields(p).map(f -> f.length > 1 && Long.parseLong(f[1]) == pid).orElse(false)) {
                return true;
            }
        }
        return false;
    }

    /** Pids of live processes in the process group or session {@code id}. */
    static List<Long> inGroupOrSession(long id) {
        List<Long> found = new ArrayList<>();
        for (long pid : pids()) {
            statFields(pid).ifPresent(f -> {
                // after the ")" that ends the command name: state ppid pgrp session ...
                if (f.length > 3 && !isDead(f[0]) && (Long.parseLong(f[2]) == id || Long.parseLong(f[3]) == id)) {
                    found.add(pid);
                }
            });
        }
        return found;
    }

    private static Optional<String[]> statFields(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.ISO_8859_1);
            int close = stat.lastIndexOf(')');
            return close < 0 ? Optional.empty() : Optional.of(stat.substring(close + 2).trim().split("\\s+"));
        } catch (IOException | RuntimeException gone) {
            return Optional.empty();
        }
    }

    static List<Long> pids() {
        List<Long> pids = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(PROC)) {
            for (Path p : s) {
                String n = p.getFileName().toString();
                if (!n.isEmpty() && Character.isDigit(n.charAt(0))) {
                    try {
                        pids.add(Long.parseLong(n));
                    } catch (NumberFormatException notAPid) {
                        // skip
                    }
                }
            }
        } catch (IOException e) {
            return pids;
        }
        return pids;
    }

    /** Sends SIGKILL; false when the process was already gone. */
    static boolean kill(long pid) {
        if (pid == ProcessHandle.current().pid()) {
            return false;
        }
        return ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
    }
}
