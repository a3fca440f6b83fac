package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.JudgeScripts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What a judged run's two sandboxes share: a pair of FIFOs (judge to candidate, candidate to judge), made on the
 * host in a directory of their own and bound read-only into both sandboxes — a FIFO stays writable through a
 * read-only bind, and nothing written to it reaches a disk — and the judge's scripts, bound read-only.
 * Nothing else of one sandbox is visible in the other.
 */
final class JudgeChannel {

    /** Where the FIFOs appear inside both sandboxes. */
    static final String SANDBOX_CHANNEL = "/.judge";
    /** Where the judge's scripts appear inside both sandboxes. */
    static final String SANDBOX_LIB = "/.judge-lib";
    static final String TO_CANDIDATE = "j2c";
    static final String TO_JUDGE = "c2j";

    private static final Path MKFIFO = HostTools.find("mkfifo");

    private JudgeChannel() {
    }

    /** Writes the judge's scripts into a new directory under {@code parent}, readable by every uid. */
    static Path writeScripts(Path parent) throws IOException {
        Path dir = Files.createDirectory(parent.resolve("judge-lib"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (Map.Entry<String, String> f : JudgeScripts.files().entrySet()) {
            Path p = dir.resolve(f.getKey());
            Files.writeString(p, f.getValue(), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
        return dir;
    }

    /**
     * A new channel directory under {@code workRoot} holding the two FIFOs, open to the two uids that use them
     * (the directory's name is random and it cannot be listed: no other process finds them).
     */
    static Path create(Path workRoot) throws IOException {
        if (MKFIFO == null) {
            throw new IOException("mkfifo (coreutils) is not installed");
        }
        Path dir = Files.createTempDirectory(workRoot, "codeagent-judge-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Process p = new ProcessBuilder(MKFIFO.toString(), "-m", "0666", dir.resolve(TO_CANDIDATE).toString(),
                dir.resolve(TO_JUDGE).toString()).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                Reaper.remove(dir, null);
                throw new IOException("mkfifo failed: " + out);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Reaper.remove(dir, null);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making the judge's channel");
        }
        return dir;
    }

    /** The binds both sandboxes of a judged run get. */
    static List<RunSpec.Bind> binds(Path channel, Path scripts) {
        return List.of(new RunSpec.Bind(channel.resolve(TO_CANDIDATE), SANDBOX_CHANNEL + "/" + TO_CANDIDATE),
                new RunSpec.Bind(channel.resolve(TO_JUDGE), SANDBOX_CHANNEL + "/" + TO_JUDGE),
                new RunSpec.Bind(scripts, SANDBOX_LIB));
    }
}
