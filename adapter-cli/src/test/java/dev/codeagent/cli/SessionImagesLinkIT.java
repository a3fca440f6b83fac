package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (issue 29, round 4): {@code codeagent session} saves each image a cell displays as {@code cell-N-K.png} in
 * {@code --images} (in a REPL, the working directory). The name is predictable and the file was written with
 * {@code Files.write}, which follows a link: another local user who can create entries in that directory (a shared
 * {@code /tmp} or a group-writable project directory, on a host without {@code fs.protected_symlinks}) plants
 * {@code cell-1-1.png -> /the/victim's/file} and the victim overwrites their own file with the image's bytes (whose
 * tail the cell chooses) — as root, any file.
 */
@Tag("slow")
class SessionImagesLinkIT {

    @TempDir
    Path dir;

    @Test
    void anImageIsNeverWrittenThroughALinkAnotherUserPlanted() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv to act as another user");
        assumeTrue(Files.getOwner(Path.of("/proc/self")).getName().equals("root"), "only root can act as another user here");
        assumeTrue(new ProcessBuilder("/usr/bin/python3", "-c", "import ipykernel, jupyter_client").start().waitFor() == 0,
                "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        // the victim's file, in a directory of its own
        Path mine = Files.createDirectory(dir.resolve("mine"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path marker = Files.writeString(mine.resolve("marker"), "untouched\n");
        // a shared directory like /tmp: anyone may create entries, the sticky bit keeps them from removing others'
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        new ProcessBuilder("chmod", "1777", shared.toString()).start().waitFor();
        Process plant = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "ln", "-s", marker.toString(), shared.resolve("cell-1-1.png").toString()).redirectErrorStream(true).start();
        assertThat(plant.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(plant.exitValue()).as(new String(plant.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        assertThat(Files.getOwner(shared.resolve("cell-1-1.png"), java.nio.file.LinkOption.NOFOLLOW_LINKS).getName())
                .isNotEqualTo("root");

        String cell = "from IPython.display import Image, display\n"
                + "display(Image(data=b'\\x89PNG\\r\\n\\x1a\\n' + b'\\necho pwned\\n', format='png'))\n";
        CliRunner.Result r = new CliRunner(dir).runWithStdin(cell, "session", "--sandbox", "process", "--images",
                shared.toString());

        assertThat(r.out()).as(r.toString()).contains("── cell 1: OK");
        assertThat(new String(Files.readAllBytes(marker), StandardCharsets.ISO_8859_1)).as("the victim's file, after the session: "
                + r).isEqualTo("untouched\n");
        // the name now holds the image itself (root may replace another user's entry even in a sticky directory; any
        // other victim gets no image saved there), never the link
        Path saved = shared.resolve("cell-1-1.png");
        assertThat(Files.isSymbolicLink(saved)).as("the planted link was replaced, not written through").isFalse();
        assertThat(Files.readAllBytes(saved)).startsWith(0x89, 'P', 'N', 'G');
    }
}
