package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real MCP clients of the tests (the TypeScript SDK, the Inspector's CLI, the conformance suite): src/test/node
 * copied to target/mcp-clients and installed from its pinned lock file with {@code npm ci}, run by the machine's
 * Node.js; and the command line that starts this module's server over stdio, for them to launch.
 */
final class NodeClients {

    private NodeClients() {
    }

    /** The installed client directory (installed once per build). */
    static Path install() throws IOException, InterruptedException {
        Path work = Path.of("target", "mcp-clients");
        Files.createDirectories(work);
        try (var files = Files.list(Path.of("src", "test", "node"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, work.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        // installed from this very lock file, or installed again (a pin changed since the last build)
        Path stamp = work.resolve("node_modules/.installed-from-lock.json");
        byte[] lock = Files.readAllBytes(work.resolve("package-lock.json"));
        if (!Files.exists(stamp) || !java.util.Arrays.equals(Files.readAllBytes(stamp), lock)) {
            Result r = run(work, List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), Map.of(), 600);
            assertThat(r.exit()).as("npm ci: " + r.output()).isZero();
            Files.write(stamp, lock);
        }
        return work;
    }

    /** {@code codeagent mcp} with this JVM's class path and {@code settings} as {@code --set}s: what a client starts. */
    static List<String> server(Map<String, String> settings) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                McpMain.class.getName(), "--sandbox", "process", "--set", "store.kind=memory"));
        settings.forEach((k, v) -> command.addAll(List.of("--set", k + "=" + v)));
        return command;
    }

    static String json(List<String> command) throws IOException {
        return new ObjectMapper().writeValueAsString(command);
    }

    record Result(int exit, String output) {
    }

    /** Runs a command in {@code dir} with {@code env} added; kills it after the timeout. */
    static Result run(Path dir, List<String> command, Map<String, String> env, int timeoutSeconds)
            throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "out", ".txt");
        ProcessBuilder b = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        b.environment().putAll(env);
        Process p = b.start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                throw new AssertionError(command.get(0) + " did not finish in " + timeoutSeconds + " s: " + Files.readString(log));
            }
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        Files.deleteIfExists(log);
        return new Result(p.exitValue(), text);
    }
}
