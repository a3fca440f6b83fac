package dev.codeagent.application.host;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A directory that only this process's user can write, made and checked so that no other local user can
 * steer what is created in it: another user may have created the path first (a squat in a world-writable
 * parent such as {@code /tmp}), or put a symbolic link where a directory or file is expected.
 *
 * <p>The checks, in order: every ancestor is owned by root or by this user and is writable by nobody else,
 * unless it is sticky (then others can create entries in it, but not rename or remove ours); the directory
 * itself is made {@code 0700} if missing, and then — made now or found — it must be a real directory (never a
 * link), owned by this user, with no permission for group or others. Anything else is refused with an
 * {@link InsecurePathException} naming the path and what is wrong, never repaired: a directory another user
 * could write may already hold their links.
 *
 * <p>Files in it are opened with {@link #open}, which never follows a link at the last component.
 */
public final class PrivateDirectory {

    private static final Set<PosixFilePermission> OTHERS_WRITE = EnumSet.of(
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private PrivateDirectory() {
    }

    /** The refusal: one line, naming the path. */
    public static final class InsecurePathException extends IOException {
        public InsecurePathException(String message) {
            super(message);
        }
    }

    /**
     * Makes {@code dir} (and any missing ancestors, each {@code 0700}) or checks the one that is there.
     *
     * @return the absolute, checked directory
     * @throws InsecurePathException when another user could write it or its ancestors, or it is a link
     * @throws IOException when it cannot be made
     */
    public static Path ensure(Path dir) throws IOException {
        return ensure(dir, EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                PosixFilePermission.OWNER_EXECUTE));
    }

    /**
     * Like {@link #ensure(Path)} but with the given mode, for a directory that other uids must search (e.g.
     * {@code rwx--x--x}): the most a found directory may have, and what a missing one and its missing ancestors
     * are made with (those uids must search them too). It must still be writable by this user alone.
     */
    public static Path ensure(Path dir, Set<PosixFilePermission> mode) throws IOException {
        if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IllegalArgumentException("a private directory is writable by its owner alone: " + mode);
        }
        Path abs = dir.toAbsolutePath().normalize();
        int me = currentUid();
        List<Path> missing = new ArrayList<>();
        Path existing = abs;
        while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
            missing.add(0, existing);
            existing = existing.getParent();
        }
        if (existing == null) {
            throw new IOException("cannot make " + abs + ": no ancestor exists");
        }
        checkAncestors(existing.equals(abs) ? abs.getParent() : existing, me, abs);
        for (Path p : missing) {
            boolean last = p.equals(abs);
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(mode));
                // the umask may have taken bits away; never adds any
                Files.setPosixFilePermissions(p, mode);
            } catch (FileAlreadyExistsException raced) {
                // made by someone else between the look and the make: checked below like any found directory
            }
            if (!last) {
                checkOwnedDirectory(p, me, true, abs);
            }
        }
        checkOwnedDirectory(abs, me, false, abs);
        PosixFileAttributes attrs = Files.readAttributes(abs, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String has = PosixFilePermissions.toString(attrs.permissions());
        if (containsAny(attrs.permissions(), OTHERS_WRITE)) {
            // never "remove it": this may be /tmp itself, named by a user who meant a directory in it
            throw new InsecurePathException(abs + " is writable by other users (" + has + "); use a directory only "
                    + "its owner can write");
        }
        Set<PosixFilePermission> extra = EnumSet.copyOf(attrs.permissions());
        extra.removeAll(mode);
        if (containsAny(extra, GROUP_OR_OTHERS)) {
            throw new InsecurePathException(abs + " has permissions " + has + "; it must be "
                    + PosixFilePermissions.toString(mode) + " or narrower (chmod " + octal(mode) + " " + abs + ")");
        }
        return abs;
    }

    /**
     * Checks, without making anything, that {@code dir} is a directory {@link #ensure} would accept as this
     * user's: a real directory owned by this user that no one else can write, under ancestors no one else can
     * steer. For a directory someone else's code made, trusted only if it passes.
     *
     * @throws java.nio.file.NoSuchFileException when it does not exist
     * @throws InsecurePathException when another user could have made or changed it
     */
    public static Path verify(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        int me = currentUid();
        if (!Files.exists(abs, LinkOption.NOFOLLOW_LINKS)) {
            throw new java.nio.file.NoSuchFileException(abs.toString());
        }
        checkAncestors(abs.getParent(), me, abs);
        checkOwnedDirectory(abs, me, true, abs);
        return abs;
    }

    private static String octal(Set<PosixFilePermission> mode) {
        int bits = 0;
        for (PosixFilePermission p : mode) {
            bits |= 0400 >> p.ordinal();
        }
        return String.format("%03o", bits);
    }

    /**
     * Opens a file in a checked directory without following a link at its name; with {@code CREATE} a new
     * file is made {@code 0600}. A link there is refused as insecure.
     */
    public static FileChannel open(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> opts = new java.util.HashSet<>(List.of(options));
        opts.add(LinkOption.NOFOLLOW_LINKS);
        try {
            if (opts.contains(StandardOpenOption.CREATE) || opts.contains(StandardOpenOption.CREATE_NEW)) {
                return FileChannel.open(file, opts, PosixFilePermissions.asFileAttribute(
                        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
            }
            return FileChannel.open(file, opts);
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) {
                throw new InsecurePathException(file + " is a symbolic link; remove it and retry");
            }
            throw e;
        }
    }

    /** The uid this process runs as (the owner of {@code /proc/self}). */
    public static int currentUid() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    private static void checkAncestors(Path from, int me, Path target) throws IOException {
        for (Path p = from; p != null; p = p.getParent()) {
            PosixFileAttributes a;
            try {
                a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                throw new IOException("cannot check " + p + " (an ancestor of " + target + "): " + e.getMessage(), e);
            }
            int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            if (a.isSymbolicLink()) {
                // a link owned by root or us, in a directory only root or we can write, is the system's own
                // (e.g. /var/run -> /run): follow it by checking what it names
                if (owner != 0 && owner != me) {
                    throw new InsecurePathException(p + " (on the way to " + target + ") is a link owned by uid " + owner);
                }
                checkAncestors(p.toRealPath(), me, target);
                continue;
            }
            if (owner != 0 && owner != me) {
                throw new InsecurePathException(p + " (on the way to " + target + ") belongs to uid " + owner
                        + ", another user; choose a directory only you or root can write");
            }
            boolean sticky = ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 01000) != 0;
            if (containsAny(a.permissions(), OTHERS_WRITE) && !sticky) {
                throw new InsecurePathException(p + " (on the way to " + target + ") is writable by others and not sticky; "
                        + "choose a directory only you or root can write");
            }
        }
    }

    private static void checkOwnedDirectory(Path p, int me, boolean strictMode, Path target) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            throw new InsecurePathException(p + " is a symbolic link, not a directory"
                    + (p.equals(target) ? "" : " (on the way to " + target + ")") + "; remove it and retry");
        }
        if (!a.isDirectory()) {
            throw new InsecurePathException(p + " is not a directory; remove it and retry");
        }
        int owner = (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        if (owner != me) {
            throw new InsecurePathException(p + " belongs to uid " + owner + ", not to this process's uid " + me
                    + " (another user made it first); remove it and retry");
        }
        if (strictMode && containsAny(a.permissions(), OTHERS_WRITE)) {
            throw new InsecurePathException(p + " is writable by others; remove it and retry");
        }
    }

    private static boolean containsAny(Set<PosixFilePermission> have, Set<PosixFilePermission> any) {
        for (PosixFilePermission p : any) {
            if (have.contains(p)) {
                return true;
            }
        }
        return false;
    }
}
