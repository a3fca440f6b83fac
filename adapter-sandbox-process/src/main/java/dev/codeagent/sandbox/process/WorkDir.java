package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Program;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/**
 * A fresh private directory (0700) holding one program's source and extra files, owned by the uid that
 * runs it. {@link #delete} removes it without ever following a link the program planted.
 */
final class WorkDir {

    private final Path dir;
    private final List<String> files;

    private WorkDir(Path dir, List<String> files) {
        this.dir = dir;
        this.files = List.copyOf(files);
    }

    /**
     * @param owner uid that will run the program, or -1 to keep the JVM's
     * @throws IOException when the directory or a file cannot be written
     */
    static WorkDir create(Path root, Program program, long owner) throws IOException {
        Files.createDirectories(root);
        Path dir = Files.createTempDirectory(root, "codeagent-run-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        WorkDir w = null;
        try {
            List<String> names = new ArrayList<>();
            write(dir, program.mainFileName(), program.source().getBytes(StandardCharsets.UTF_8), owner);
            names.add(program.mainFileName());
            for (Map.Entry<String, String> f : program.files().entrySet()) {
                write(dir, f.getKey(), f.getValue().getBytes(StandardCharsets.UTF_8), owner);
                names.add(f.getKey());
            }
            for (Map.Entry<String, String> f : program.binaryFiles().entrySet()) {
                write(dir, f.getKey(), java.util.Base64.getDecoder().decode(f.getValue()), owner);
                names.add(f.getKey());
            }
            if (owner >= 0) {
                Files.setAttribute(dir, "unix:uid", (int) owner, LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(dir, "unix:gid", (int) owner, LinkOption.NOFOLLOW_LINKS);
            }
            w = new WorkDir(dir, names);
            return w;
        } finally {
            if (w == null) {
                delete(dir);
            }
        }
    }

    private static void write(Path dir, String name, byte[] content, long owner) throws IOException {
        Path target = dir.resolve(name).normalize();
        if (!target.startsWith(dir)) {
            throw new IOException("file name escapes the work directory: " + name);
        }
        Path parent = target.getParent();
        if (!parent.equals(dir) && !Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(parent);
            for (Path p = parent; !p.equals(dir); p = p.getParent()) {
                chown(p, owner);
            }
        }
        Files.write(target, content);
        chown(target, owner);
    }

    private static void chown(Path p, long owner) throws IOException {
        if (owner >= 0) {
            Files.setAttribute(p, "unix:uid", (int) owner, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(p, "unix:gid", (int) owner, LinkOption.NOFOLLOW_LINKS);
        }
    }

    Path path() {
        return dir;
    }

    /** The program's files by relative name, main source first. */
    List<String> files() {
        return files;
    }

    /**
     * Removes a directory tree. Links are deleted as links, never followed; directories the program
     * made unreadable are opened up first (by their own inode, never through a link).
     */
    static void delete(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(root);
            return;
        }
        openUp(root);
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                if (attrs.isSymbolicLink()) {
                    Files.deleteIfExists(d);
                    return FileVisitResult.SKIP_SUBTREE;
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                if (attrs.isDirectory()) {
                    // reached here because it could not be opened: open it up and walk it on its own
                    delete(f);
                    return FileVisitResult.CONTINUE;
                }
                Files.deleteIfExists(f);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                if (Files.isDirectory(f, LinkOption.NOFOLLOW_LINKS)) {
                    openUp(f);
                    delete(f);
                    return FileVisitResult.CONTINUE;
                }
                Files.deleteIfExists(f);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void openUp(Path d) {
        try {
            if (Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(d, EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE));
            }
        } catch (IOException | UnsupportedOperationException e) {
            // root needs no permission bits; another owner's directory fails below with a clear error
        }
    }
}
