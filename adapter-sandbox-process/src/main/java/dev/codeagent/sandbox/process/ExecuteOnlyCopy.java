package dev.codeagent.sandbox.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
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

    private static final Set<PosixFilePermission> EXECUTE_ONLY = PosixFilePermissions.fromString("--x--x--x");

    private ExecuteOnlyCopy() {
    }

    /** The copy of {@code source} under {@code root}, made if missing; empty when it cannot be trusted or made. */
    static Optional<Path> of(Path source, Path root) {
        try {
            Path dir = root.resolve("codeagent-bin");
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            } catch (java.nio.file.FileAlreadyExistsException exists) {
                // made earlier, by this or another JVM; trusted only if root's and closed to others, below
            }
            if (!ownedByRootAndClosed(dir, true)) {
                return Optional.empty();
            }
            Path real = source.toRealPath();
            String name = real.getFileName() + "-" + Files.size(real) + "-" + Files.getLastModifiedTime(real).toMillis();
            Path target = dir.resolve(name);
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                Path tmp = Files.createTempFile(dir, ".copy-", ".tmp");
                try {
                    Files.copy(real, tmp, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(tmp, EXECUTE_ONLY);
                    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(tmp);
                }
            }
            PosixFileAttributes a = Files.readAttributes(target, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile() || !a.permissions().equals(EXECUTE_ONLY) || !ownedByRootAndClosed(target, false)) {
                return Optional.empty();
            }
            return Optional.of(target);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static boolean ownedByRootAndClosed(Path p, boolean directory) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> perms = a.permissions();
        return owner == 0 && (directory ? a.isDirectory() : a.isRegularFile())
                && !perms.contains(PosixFilePermission.GROUP_WRITE) && !perms.contains(PosixFilePermission.OTHERS_WRITE);
    }
}
