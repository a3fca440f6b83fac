package dev.codeagent.sandbox.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RusageTest {

    @TempDir
    Path dir;

    @Test
    void readsGnuTimesLine() throws IOException {
        Path f = Files.writeString(dir.resolve("r"), "0.50 0.25 0.05 2048\n");
        assertThat(Child.Rusage.read(f)).isEqualTo(new Child.Rusage(Duration.ofMillis(300), 2048L * 1024));
    }

    @Test
    void readsNoMoreThanALineOfAFileTheProgramBloated() throws IOException {
        // the program can write the file: it must not make the sandbox read megabytes
        Path f = Files.writeString(dir.resolve("r"), "1".repeat(8 * 1024 * 1024));
        assertThat(Child.Rusage.read(f)).isEqualTo(new Child.Rusage(null, null));
        Path link = Files.createSymbolicLink(dir.resolve("link"), Files.writeString(dir.resolve("t"), "0.50 0.25 0.05 2048\n"));
        assertThat(Child.Rusage.read(link)).isEqualTo(new Child.Rusage(null, null));
    }
}
