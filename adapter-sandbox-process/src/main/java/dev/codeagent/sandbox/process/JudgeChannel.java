package dev.codeagent.sandbox.process;

import dev.codeagent.kit.sandbox.JudgeScripts;
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
 * Nothing else of one sandbox is visible in the other, and no other uid can open the FIFOs ({@link #handOver}).
 */
final class JudgeChannel {

    /** Where the FIFOs appear inside both sandboxes. */
    static final String SANDBOX_CHANNEL = "/.judge";
    /** Where a judge server sees the channel directories of all its jobs. */
    static final String SANDBOX_CHANNELS = "/.judge-channels";
    /** Where the judge's scripts appear inside both sandboxes. */
    static final String SANDBOX_LIB = "/.judge-lib";
    static final String TO_CANDIDATE = "j2c";
    static final String TO_JUDGE = "c2j";

    private static final Path MKFIFO = HostTools.find("mkfifo");

    private JudgeChannel() {
    }

    /**
     * Writes the judge's scripts into a new directory under {@code parent}, readable by every uid, and compiles
     * them with {@code python}: each side runs its script from bytecode ({@link #script}) and imports the wire
     * from {@code __pycache__}, instead of compiling ~900 lines in every sandbox of every run (the sandboxes run
     * Python with {@code -B} and see this directory read-only, so they could never cache it themselves).
     * Compiled names say {@value #SANDBOX_LIB}, where the sandboxes see the files, not this host path.
     */
    static Path writeScripts(Path parent, Path python) throws IOException {
        Path dir = Files.createDirectory(parent.resolve("judge-lib"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        for (Map.Entry<String, String> f : JudgeScripts.files().entrySet()) {
            Path p = dir.resolve(f.getKey());
            Files.writeString(p, f.getValue(), StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
        // once for imports (__pycache__, checked against the sources), once beside them for the scripts
        compile(python, List.of("-m", "compileall", "-q", "-d", SANDBOX_LIB, dir.toString()));
        compile(python, List.of("-m", "compileall", "-q", "-b", "-d", SANDBOX_LIB, dir.toString()));
        try (var files = Files.walk(dir)) {
            for (Path p : files.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return dir;
    }

    /** Where a side's script is inside the sandboxes: its bytecode when it was compiled, else its source. */
    static String script(Path scripts, String name) {
        String compiled = name.substring(0, name.length() - ".py".length()) + ".pyc";
        return SANDBOX_LIB + "/" + (Files.isRegularFile(scripts.resolve(compiled)) ? compiled : name);
    }

    /** Runs {@code python} with {@code args}; a failure is logged, not thrown: the sources still run. */
    private static void compile(Path python, List<String> args) {
        List<String> command = new java.util.ArrayList<>();
        command.add(python.toString());
        command.addAll(args);
        try {
            runTool(command, 30);
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(JudgeChannel.class).warn(
                    "process sandbox: cannot compile the judge's scripts (they run from source): {}", e.getMessage());
        }
    }

    /**
     * Runs a host tool to its end within {@code seconds}.
     *
     * @throws java.io.InterruptedIOException when the thread is interrupted (the tool is killed, the flag set again)
     * @throws IOException with the tool's output when it could not start, failed or took too long
     */
    private static void runTool(List<String> command, long seconds) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(seconds, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(out);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        }
    }

    /**
     * A new channel directory under {@code workRoot} holding the two FIFOs, this JVM's uid's alone until
     * {@link #handOver} opens them to the two sides. Its random name is no secret: the FIFOs' host paths are in the
     * command lines and mountinfo of the sandboxes, which every local user can read in /proc.
     */
    static Path create(Path workRoot) throws IOException {
        return create(workRoot, 1).get(0);
    }

    /**
     * {@code count} new channel directories under {@code parent}, their FIFOs made by one {@code mkfifo}: a batch's
     * channels are made ahead in groups (see {@link Pool}), one tool start for many jobs instead of one each.
     */
    static List<Path> create(Path parent, int count) throws IOException {
        if (MKFIFO == null) {
            throw new IOException("mkfifo (coreutils) is not installed");
        }
        List<Path> dirs = new java.util.ArrayList<>();
        List<String> command = new java.util.ArrayList<>(List.of(MKFIFO.toString(), "-m", "0600"));
        try {
            for (int i = 0; i < count; i++) {
                Path dir = Files.createTempDirectory(parent, "codeagent-judge-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                dirs.add(dir);
                command.add(dir.resolve(TO_CANDIDATE).toString());
                command.add(dir.resolve(TO_JUDGE).toString());
            }
            runTool(command, 10);
            return dirs;
        } catch (java.io.InterruptedIOException e) {
            dirs.forEach(d -> Reaper.remove(d, null));
            throw new IOException("interrupted while making the judge's channel");
        } catch (IOException e) {
            dirs.forEach(d -> Reaper.remove(d, null));
            throw new IOException("mkfifo failed: " + e.getMessage());
        }
    }

    /**
     * Opens {@code dir}'s FIFOs to the two sides of one judged run and to no one else: owned by the judge's uid,
     * group the candidate's (each side runs with its uid as its only group), each FIFO open only in the direction
     * its side uses it — judge to candidate {@code -w-r-----}, candidate to judge {@code r---w----} — and the
     * directory searchable by the two, listable by none ({@code --x--x---}). Any other local user is refused at the
     * directory and again at the FIFO: a forged reply or verdict, or the tests' calls read on the way, would need
     * one of the two uids. The judge owns them, not the candidate: an owner may change the modes, and the
     * candidate runs the code under test.
     *
     * <p>When both sides run as this JVM's uid (no uid pool: {@code -1} for both), the FIFOs stay as made,
     * this uid's alone ({@code rw-------} in a {@code rwx------} directory).
     *
     * @throws IOException when only one side has a uid of its own (no mode serves both), or a change fails
     */
    static void handOver(Path dir, long judgeUid, long candidateUid) throws IOException {
        if (judgeUid < 0 && candidateUid < 0) {
            return;
        }
        if (judgeUid < 0 || candidateUid < 0) {
            throw new IOException("the judge (uid " + judgeUid + ") and the candidate (uid " + candidateUid
                    + ") must both run as pool uids or both as this process's");
        }
        give(dir.resolve(TO_CANDIDATE), judgeUid, candidateUid, "-w-r-----");
        give(dir.resolve(TO_JUDGE), judgeUid, candidateUid, "r---w----");
        give(dir, judgeUid, candidateUid, "--x--x---");
    }

    /** Owner, group, then modes: until the last step only this JVM's uid can open {@code p}. */
    private static void give(Path p, long uid, long gid, String modes) throws IOException {
        Files.setAttribute(p, "unix:uid", Math.toIntExact(uid), java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", Math.toIntExact(gid), java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(modes));
    }

    /** A batch's channels, made {@value #POOL_BATCH} at a time under the batch's directory and handed out once each. */
    static final class Pool {
        static final int POOL_BATCH = 64;
        private final Path parent;
        private final java.util.ArrayDeque<Path> ready = new java.util.ArrayDeque<>();

        Pool(Path parent) {
            this.parent = parent;
        }

        synchronized Path take() throws IOException {
            if (ready.isEmpty()) {
                ready.addAll(create(parent, POOL_BATCH));
            }
            return ready.poll();
        }
    }

    /** The binds both sandboxes of a judged run get. */
    static List<LaunchSpec.Bind> binds(Path channel, Path scripts) {
        return List.of(new LaunchSpec.Bind(channel.resolve(TO_CANDIDATE), SANDBOX_CHANNEL + "/" + TO_CANDIDATE),
                new LaunchSpec.Bind(channel.resolve(TO_JUDGE), SANDBOX_CHANNEL + "/" + TO_JUDGE),
                new LaunchSpec.Bind(scripts, SANDBOX_LIB));
    }
}
