package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.function.Supplier;

/** Reading and writing cgroupfs files, and the kill-until-empty loop both cgroup versions share. */
final class CgroupFiles {

    private static final long KILL_TIMEOUT_MS = 5_000;
    private static final long RMDIR_TIMEOUT_MS = 2_000;

    private CgroupFiles() {
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    static long readLong(Path file) {
        String s = read(file);
        return s.equals("max") ? Long.MAX_VALUE : Long.parseLong(s);
    }

    /** Writes a value without creating the file: a missing control is an error, not a new regular file. */
    static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
    }

    /** The value of {@code key} in a file of "key value" lines (memory.events, cpu.stat, memory.oom_control). */
    static OptionalLong keyed(Path file, String key) {
        for (String line : read(file).split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0 && line.substring(0, sp).equals(key)) {
                return OptionalLong.of(Long.parseLong(line.substring(sp + 1).trim()));
            }
        }
        return OptionalLong.empty();
    }

    /** The pids listed in cgroup.procs files (a process dying meanwhile is simply not listed). */
    static List<Long> pids(Collection<Path> procsFiles) {
        TreeSet<Long> pids = new TreeSet<>();
        for (Path f : procsFiles) {
            try {
                for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
                    if (!line.isBlank()) {
                        pids.add(Long.parseLong(line.trim()));
                    }
                }
            } catch (NoSuchFileException gone) {
                // the group was removed: nothing in it
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + f, e);
            }
        }
        return new ArrayList<>(pids);
    }

    /**
     * SIGKILLs whatever {@code pids} lists until it lists nothing. ProcessHandle checks each process's start
     * time, so a pid reused by an unrelated process in between is not hit.
     */
    static boolean killUntilEmpty(Supplier<List<Long>> pids) {
        long deadline = System.currentTimeMillis() + KILL_TIMEOUT_MS;
        while (true) {
            List<Long> left = pids.get();
            if (left.isEmpty()) {
                return true;
            }
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            for (long pid : left) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            pause();
        }
    }

    /** rmdir of a group; the kernel refuses while exiting tasks are still being released, so retry briefly. */
    static void removeDir(Path dir) {
        long deadline = System.currentTimeMillis() + RMDIR_TIMEOUT_MS;
        while (true) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (FileSystemException busy) {
                if (System.currentTimeMillis() > deadline) {
                    throw new UncheckedIOException("cannot remove control group " + dir + ": " + busy.getReason(), busy);
                }
                pause();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot remove control group " + dir, e);
            }
        }
    }

    static void pause() {
        Cleanup.pause(5);
    }
}
