package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkDirTest {

    @TempDir
    Path root;

    @Test
    void writesThePrivateDirectoryWithTheSourceAndExtraFiles() throws Exception {
        Program p = new Program(Language.PYTHON, "print(1)", Map.of("data.txt", "x", "pkg/mod.py", "y = 1"));
        WorkDir w = WorkDir.create(root, p, -1);
        assertThat(Files.getPosixFilePermissions(w.path())).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(w.path().resolve("main.py")).hasContent("print(1)");
        assertThat(w.path().resolve("pkg/mod.py")).hasContent("y = 1");
        assertThat(w.files().get(0)).isEqualTo("main.py");
        assertThat(w.files()).containsExactlyInAnyOrder("main.py", "data.txt", "pkg/mod.py");
        WorkDir.delete(w.path());
        assertThat(w.path()).doesNotExist();
    }

    @Test
    void deletesLinksNotWhatTheyPointAt() throws Exception {
        Path precious = Files.createDirectories(root.resolve("precious"));
        Path marker = Files.writeString(precious.resolve("marker.txt"), "keep");
        Path dir = Files.createDirectories(root.resolve("run"));
        Files.createSymbolicLink(dir.resolve("to-file"), marker);
        Files.createSymbolicLink(dir.resolve("to-dir"), precious);
        Path sub = Files.createDirectories(dir.resolve("sub/deeper"));
        Files.createSymbolicLink(sub.resolve("nested"), precious);
        Files.createSymbolicLink(dir.resolve("dangling"), root.resolve("nowhere"));
        Files.setPosixFilePermissions(dir.resolve("sub"), PosixFilePermissions.fromString("---------"));

        WorkDir.delete(dir);

        assertThat(Files.exists(dir, LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(marker).hasContent("keep");
        assertThat(precious).isDirectory();
    }

    @Test
    void deletingWhatIsGoneIsFine() throws Exception {
        WorkDir.delete(root.resolve("never-made"));
        Path link = Files.createSymbolicLink(root.resolve("link"), root);
        WorkDir.delete(link);
        assertThat(Files.exists(link, LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(root).isDirectory();
    }
}
