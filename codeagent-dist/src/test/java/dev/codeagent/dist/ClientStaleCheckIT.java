package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's staleness check done by the compiled client ({@code codeagent-client --stale STAMP PATH...}): the
 * same answer {@code find PATH... -newer STAMP} gave, for files and directories at any depth.
 */
class ClientStaleCheckIT {

    @TempDir
    static Path bin;
    @TempDir
    Path tree;
    private static Path client;

    @BeforeAll
    static void compile() throws Exception {
        Path source = Path.of("..", "adapter-cli", "src", "main", "c", "codeagent-client.c").toAbsolutePath().normalize();
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/cc")) || "true".equals(System.getenv("CI")), "needs a C compiler");
        client = bin.resolve("codeagent-client");
        assertThat(run(List.of("cc", "-O2", "-o", client.toString(), source.toString()))).isZero();
    }

    private static int run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    private int stale(Path stamp, Path... paths) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(client.toString(), "--stale", stamp.toString()));
        for (Path p : paths) {
            cmd.add(p.toString());
        }
        return run(cmd);
    }

    private static void age(Path p, int secondsAgo) throws IOException {
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minusSeconds(secondsAgo)));
    }

    @Test
    void aFileOrDirectoryNewerThanTheStampAnywhereBelowMakesItStale() throws Exception {
        Path deep = Files.createDirectories(tree.resolve("a/src/main/java/x"));
        Path file = Files.writeString(deep.resolve("X.java"), "class X {}");
        Path pom = Files.writeString(tree.resolve("pom.xml"), "<project/>");
        Path stamp = Files.writeString(tree.resolve("built.jar"), "jar");
        for (Path p : List.of(file, deep, deep.getParent(), tree.resolve("a/src/main"), tree.resolve("a/src"), tree.resolve("a"), pom)) {
            age(p, 100);
        }
        age(stamp, 50);
        assertThat(stale(stamp, pom, tree.resolve("a/src/main"), tree.resolve("missing"))).as("nothing newer").isEqualTo(1);

        age(file, 10);
        assertThat(stale(stamp, pom, tree.resolve("a/src/main"))).as("an edited file four levels down").isZero();
        age(file, 100);
        Files.writeString(deep.resolve("New.java"), "class New {}");
        age(deep.resolve("New.java"), 100);
        assertThat(stale(stamp, pom, tree.resolve("a/src/main"))).as("a directory that gained a file").isZero();
        age(deep, 100);
        assertThat(stale(stamp, pom, tree.resolve("a/src/main"))).isEqualTo(1);
        assertThat(stale(tree.resolve("no-jar-yet"), pom)).as("no stamp: never built").isZero();
    }
}
