package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecuteOnlyCopyTest {

    @TempDir
    Path root;

    private static boolean runningAsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Test
    void makesARootOwnedExecuteOnlyCopyOnceAndReusesIt() throws IOException {
        assumeThat(runningAsRoot()).isTrue();
        Path source = Files.writeString(root.resolve("tool"), "#!/bin/sh\n");
        Optional<Path> copy = ExecuteOnlyCopy.of(source, root);
        assertThat(copy).isPresent();
        assertThat(Files.getPosixFilePermissions(copy.get(), LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(PosixFilePermissions.fromString("--x--x--x"));
        assertThat(Files.getAttribute(copy.get(), "unix:uid", LinkOption.NOFOLLOW_LINKS)).isEqualTo(0);
        assertThat(ExecuteOnlyCopy.of(source, root)).isEqualTo(copy);
        try (var entries = Files.list(copy.get().getParent())) {
            assertThat(entries).containsExactly(copy.get());
        }
    }

    @Test
    void refusesADirectoryOrCopySomeoneElseCouldHavePlanted() throws IOException {
        assumeThat(runningAsRoot()).isTrue();
        Path source = Files.writeString(root.resolve("tool"), "#!/bin/sh\n");
        Path dir = Files.createDirectory(root.resolve("codeagent-bin"));
        Files.setAttribute(dir, "unix:uid", 203_998);
        assertThat(ExecuteOnlyCopy.of(source, root)).isEmpty();

        Files.setAttribute(dir, "unix:uid", 0);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThat(ExecuteOnlyCopy.of(source, root)).isEmpty();

        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Path real = source.toRealPath();
        Path planted = dir.resolve("tool-" + Files.size(real) + "-" + Files.getLastModifiedTime(real).toMillis());
        Files.writeString(planted, "#!/bin/sh\necho planted\n");
        Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(ExecuteOnlyCopy.of(source, root)).isEmpty();
    }
}
