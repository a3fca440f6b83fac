package dev.codeagent.application.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Writes a file whole or not at all: the bytes go to a fresh temporary file beside the target (made by
 * {@link Files#createTempFile}, so with a name nobody could have guessed and linked first), which is then
 * renamed over the target in one step.
 *
 * <p>Why every writer of a file a reader may open concurrently, or a user keeps, goes through here: a reader
 * never sees half a file (a launch reading a seccomp program, Jupyter reading a kernelspec, a browser opening a
 * report while {@code eval} rewrites it); a failure or Ctrl-C leaves the old file, never a truncated one; and the
 * target's name is never opened for writing, so a link another local user put at a predictable name in a
 * directory they can write (a report in {@code /tmp}) is replaced, not followed to one of our files.
 */
public final class ReplacedFile {

    private ReplacedFile() {
    }

    /**
     * Replaces {@code target} with {@code bytes}.
     *
     * @param mode the new file's permissions, or {@code null} for what {@link Files#createTempFile} gives
     *             ({@code 0600}: the safe default for whatever a caller did not think about)
     * @throws IOException when it cannot be written; the target is then as it was and no temporary file is left
     */
    public static Path write(Path target, byte[] bytes, Set<PosixFilePermission> mode) throws IOException {
        Path abs = target.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName() + ".", ".tmp");
        try {
            Files.write(tmp, bytes);
            if (mode != null) {
                Files.setPosixFilePermissions(tmp, mode);
            }
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } finally {
            // still there only when the move did not happen
            Files.deleteIfExists(tmp);
        }
    }
}
