package dev.codeagent.application.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplacedFileTest {

    @TempDir
    Path tmp;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private long leftovers() throws IOException {
        try (Stream<Path> files = Files.list(tmp)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".tmp")).count();
        }
    }

    @Test
    void replacesTheContentAndLeavesNoTemporaryFile() throws IOException {
        Path target = tmp.resolve("report.html");
        Files.writeString(target, "old and longer than the new content");

        ReplacedFile.write(target, utf8("new"), null);

        assertThat(Files.readString(target)).isEqualTo("new");
        assertThat(leftovers()).isZero();
    }

    @Test
    void replacesALinkInsteadOfWritingThroughIt() throws IOException {
        // another user's link at a predictable name, pointing at a file of ours
        Path victim = tmp.resolve("victim");
        Files.writeString(victim, "precious");
        Path target = tmp.resolve("report.html");
        Files.createSymbolicLink(target, victim);

        ReplacedFile.write(target, utf8("report"), null);

        assertThat(Files.readString(victim)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(target)).isFalse();
        assertThat(Files.readString(target, StandardCharsets.UTF_8)).isEqualTo("report");
    }

    @Test
    void givesTheModeAskedForElseOwnerOnly() throws IOException {
        Path shared = ReplacedFile.write(tmp.resolve("filter.bpf"), utf8("x"),
                PosixFilePermissions.fromString("rw-r--r--"));
        Path plain = ReplacedFile.write(tmp.resolve("plain"), utf8("x"), null);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(shared, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-r--r--");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(plain, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rw-------");
    }

    @Test
    void aFailedReplaceKeepsTheOldFileWhole() throws IOException {
        // a directory in the target's place cannot be replaced by a file: the move fails after the bytes were written
        Path target = tmp.resolve("taken");
        Files.createDirectory(target);
        Files.writeString(target.resolve("inside"), "kept");

        assertThatThrownBy(() -> ReplacedFile.write(target, utf8("new"), null)).isInstanceOf(IOException.class);

        assertThat(Files.readString(target.resolve("inside"))).isEqualTo("kept");
        assertThat(leftovers()).isZero();
    }

    @Test
    void anUnwritableDirectoryIsAnErrorNotAPartialFile() throws IOException {
        assumeTrue(PrivateDirectory.currentUid() != 0, "root writes any directory");
        Path locked = Files.createDirectory(tmp.resolve("locked"));
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("r-x------"));
        try {
            assertThatThrownBy(() -> ReplacedFile.write(locked.resolve("f"), utf8("x"), null))
                    .isInstanceOf(AccessDeniedException.class);
            assertThat(Files.exists(locked.resolve("f"))).isFalse();
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }
}
