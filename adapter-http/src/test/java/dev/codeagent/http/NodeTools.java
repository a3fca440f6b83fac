package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real npm tools for the tests: a package directory under src/test copied to target/ and installed
 * from its pinned lock file with {@code npm ci}, then commands run there by the machine's Node.js.
 */
final class NodeTools {

    static final Path NODE = Path.of("/usr/bin/node");

    private NodeTools() {
    }

    /**
     * Copies {@code src/test/<source>}'s files to {@code target/<target>} and installs its lock file
     * there unless {@code installed} (a path under node_modules) is already in place.
     */
    static Path install(String source, String target, String installed) throws IOException, InterruptedException {
        Path work = Path.of("target", target);
        Files.createDirectories(work);
        try (var files = Files.list(Path.of("src", "test", source))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, work.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        if (!Files.exists(work.resolve("node_modules").resolve(installed))) {
            String out = run(work, List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), 300);
            assertThat(work.resolve("node_modules").resolve(installed)).as("npm ci: " + out).exists();
        }
        return work;
    }

    /** Runs a command in {@code dir}; fails unless it exits 0 in time. @return its output and error output */
    static String run(Path dir, List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "out", ".txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new AssertionError(command + " did not finish in " + timeoutSeconds + " s: " + Files.readString(log));
            }
        } finally {
            p.destroyForcibly();
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        assertThat(p.exitValue()).as(command + ": " + text).isZero();
        return text;
    }
}
