package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.eval.ResultLines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack (issue 29, round 4): {@code eval --samples /tmp/samples.jsonl} keeps its results, by default, in
 * {@code /tmp/samples.jsonl_results.jsonl} — a name anyone can predict, in a directory anyone can write. The file was
 * opened with {@code Files.newBufferedWriter}, which follows a link and truncates what it names: another local user
 * (uid 65534 here) plants {@code samples.jsonl_results.jsonl -> /the/victim's/file}, and the victim's evaluation
 * empties that file and fills it with result lines (as root: any file).
 */
class EvalResultsFileLinkTest {

    @TempDir
    Path dir;

    @Test
    void theDefaultResultsFileIsNeverOpenedThroughALinkAnotherUserPlanted() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "needs setpriv to act as another user");
        assumeTrue(Files.getOwner(Path.of("/proc/self")).getName().equals("root"), "only root can act as another user here");
        Path mine = Files.createDirectory(dir.resolve("mine"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path marker = Files.writeString(mine.resolve("marker"), "untouched\n");
        Path shared = Files.createDirectory(dir.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThat(new ProcessBuilder("chmod", "1777", shared.toString()).start().waitFor()).isZero();
        Path samples = Files.writeString(shared.resolve("samples.jsonl"), "{}\n");
        Path planted = EvalResultsFile.besides(samples);
        Process plant = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "ln", "-s", marker.toString(), planted.toString()).redirectErrorStream(true).start();
        assertThat(plant.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(plant.exitValue()).as(new String(plant.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();

        StringWriter err = new StringWriter();
        try (ResultLines results = EvalResultsFile.open(null, samples, new PrintWriter(err))) {
            assertThat(results).isNotNull();
        }

        assertThat(Files.readString(marker)).as("the victim's file after opening the results; said: " + err).isEqualTo("untouched\n");
        assertThat(Files.isSymbolicLink(planted)).as("the results never went through the planted link").isFalse();
        assertThat(Files.isRegularFile(planted, LinkOption.NOFOLLOW_LINKS)).isTrue();
    }
}
