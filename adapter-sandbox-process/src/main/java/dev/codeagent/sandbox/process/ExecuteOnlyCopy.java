package dev.codeagent.sandbox.process;

import dev.codeagent.application.host.PrivateDirectory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A root-owned copy of a host binary that others may execute but not read (mode 0111). The kernel makes a
 * process started from a file its user cannot read non-dumpable, and a non-dumpable process can be neither
 * ptraced nor have its /proc/PID/mem opened by a process of the same uid without CAP_SYS_PTRACE. The sandbox
 * runs its own helpers that share the program's uid (GNU time as pid 1) from such a copy.
 *
 * <p>Copies live in {@code <dir>/codeagent-bin/}, named for the source's size and modification time, and are
 * shared by every sandbox using that work root; they are small and never removed.
 */
final class ExecuteOnlyCopy {

    private static final Logger log = LoggerFactory.getLogger(ExecuteOnlyCopy.class);
    private static final Set<PosixFilePermission> EXECUTE_ONLY = PosixFilePermissions.fromString("--x--x--x");

    private ExecuteOnlyCopy() {
    }

    /** The directory under a work root that holds the copies. */
    static final String DIR = "codeagent-bin";

    /** The copy of {@code source} under {@code root}, made if missing; empty when it cannot be trusted or made. */
    static Optional<Path> of(Path source, Path root) {
        try {
            Path dir = trustedDir(root);
            if (dir == null) {
                return Optional.empty();
            }
            Path real = source.toRealPath();
            Path target = dir.resolve(real.getFileName() + "-" + Files.size(real) + "-" + Files.getLastModifiedTime(real).toMillis());
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                Path tmp = Files.createTempFile(dir, ".copy-", ".tmp");
                try {
                    Files.copy(real, tmp, StandardCopyOption.REPLACE_EXISTING);
                    install(tmp, target);
                } finally {
                    Files.deleteIfExists(tmp);
                }
            }
            return trusted(target) ? Optional.of(target) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code root/}{@value #DIR}, made if missing (0711); null (with a warning naming it) when it, or a directory
     * above it, is not root's alone to write: another user who made it first could have planted the "compiled"
     * file root then runs ({@link PrivateDirectory}).
     */
    static Path trustedDir(Path root) throws IOException {
        Path dir = root.resolve(DIR);
        try {
            PrivateDirectory.ensure(dir, PosixFilePermissions.fromString("rwx--x--x"));
        } catch (PrivateDirectory.InsecurePathException e) {
            log.warn("process sandbox: not using {}: {}", dir, e.getMessage());
            return null;
        }
        return ownedByRootAndClosed(dir, true) ? dir : null;
    }

    /** Makes {@code file} (in the same directory) execute-only and moves it to {@code target} atomically. */
    static void install(Path file, Path target) throws IOException {
        Files.setPosixFilePermissions(file, EXECUTE_ONLY);
        Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Whether {@code target} is a regular, root-owned, execute-only file. */
    static boolean trusted(Path target) throws IOException {
        PosixFileAttributes a = Files.readAttributes(target, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return a.isRegularFile() && a.permissions().equals(EXECUTE_ONLY) && ownedByRootAndClosed(target, false);
    }

    private static boolean ownedByRootAndClosed(Path p, boolean directory) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> perms = a.permissions();
        return owner == 0 && (directory ? a.isDirectory() : a.isRegularFile())
                && !perms.contains(PosixFilePermission.GROUP_WRITE) && !perms.contains(PosixFilePermission.OTHERS_WRITE);
    }

    /**
     * How a C program is compiled, in order of preference: linked statically first (an exec of the launcher
     * starts every run, and a dynamic one's loader and relocations cost it twice the CPU: ~2.3 ms against
     * ~1.3 ms, measured), else as the host's C library allows (no libc.a installed).
     */
    private static final List<List<String>> FLAGS = List.of(List.of("-O2", "-static"), List.of("-O2"));

    /**
     * A C program shipped beside this class ({@code name}, e.g. {@code supervisor.c}), compiled by {@code cc} into
     * {@code root/}{@value #DIR} once, execute-only, named for a hash of its source, compiler and flags so that
     * every sandbox and JVM on that root shares it and a changed source gets a new file; empty (with a warning)
     * when it cannot be made or trusted.
     */
    static Optional<Path> compiled(Path cc, Path root, String name) {
        byte[] source;
        try (InputStream in = ExecuteOnlyCopy.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing beside " + ExecuteOnlyCopy.class.getName());
            }
            source = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + name, e);
        }
        Path dir;
        try {
            dir = trustedDir(root);
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot compile {}: {}", name, e.toString());
            return Optional.empty();
        }
        if (dir == null) {
            log.warn("process sandbox: {} is not root's alone; not compiling {} there", root.resolve(DIR), name);
            return Optional.empty();
        }
        List<String> said = new java.util.ArrayList<>();
        for (List<String> flags : FLAGS) {
            Compiled c = compile(cc, dir, name, source, flags);
            if (c.binary != null) {
                return c.binary;
            }
            said.add(c.said);
        }
        log.warn("process sandbox: {} could not compile {}: {}", cc, name, String.join("; ", said));
        return Optional.empty();
    }

    /** A compile's outcome: the trusted binary (maybe empty), or null with what the compiler said. */
    private record Compiled(Optional<Path> binary, String said) {
    }

    private static Compiled compile(Path cc, Path dir, String name, byte[] source, List<String> flags) {
        String program = name.substring(0, name.lastIndexOf('.'));
        Path work = null;
        try {
            Path target = dir.resolve(program + "-" + digest(source, cc.toRealPath() + " " + String.join(" ", flags)));
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                work = Files.createTempDirectory(dir, ".cc-", PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
                Path src = work.resolve(name);
                Path out = work.resolve(program);
                Files.write(src, source);
                Path said = work.resolve("cc.log");
                List<String> command = new java.util.ArrayList<>();
                command.add(cc.toString());
                command.addAll(flags);
                command.addAll(List.of("-o", out.toString(), src.toString()));
                Process p = new ProcessBuilder(command)
                        .redirectErrorStream(true).redirectOutput(said.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                                Path.of("/dev/null").toFile())).start();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    log.warn("process sandbox: compiling {} with {} took over a minute", name, cc);
                    return new Compiled(Optional.empty(), null);
                }
                if (p.exitValue() != 0) {
                    return new Compiled(null, "exit " + p.exitValue() + " (" + String.join(" ", flags) + "): "
                            + new String(Files.readAllBytes(said), StandardCharsets.UTF_8).strip());
                }
                install(out, target);
            }
            return new Compiled(trusted(target) ? Optional.of(target) : Optional.empty(), null);
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot compile {}: {}", name, e.toString());
            return new Compiled(Optional.empty(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Compiled(Optional.empty(), null);
        } finally {
            Reaper.remove(work, null);
        }
    }

    private static String digest(byte[] source, String compiler) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(source);
            sha.update(compiler.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
