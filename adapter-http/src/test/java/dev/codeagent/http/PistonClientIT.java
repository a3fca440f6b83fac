package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Piston-compatible endpoint driven by the real {@code piston-client} npm package (pinned in
 * src/test/node/package-lock.json, installed with {@code npm ci} under target/), run by the machine's
 * Node.js. The key travels the only way a Piston client can send one: in the server URL, as HTTP Basic.
 */
@Tag("slow")
class PistonClientIT {

    private static final Path NODE = Path.of("/usr/bin/node");
    private static TestServer server;
    private static Path work;

    @BeforeAll
    static void install() throws Exception {
        server = TestServer.builder().start();
        work = Path.of("target", "piston-client");
        Files.createDirectories(work);
        for (String f : List.of("package.json", "package-lock.json", "piston-check.mjs")) {
            Files.copy(Path.of("src", "test", "node", f), work.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isDirectory(work.resolve("node_modules").resolve("piston-client"))) {
            String out = run(List.of("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"), 180);
            assertThat(work.resolve("node_modules").resolve("piston-client")).as("npm ci: " + out).isDirectory();
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void pistonClientRunsCodeUnchanged() throws Exception {
        String url = "http://piston:" + TestServer.ADMIN_KEY + "@127.0.0.1:" + server.base.getPort();
        String out = run(List.of(NODE.toString(), "piston-check.mjs", url), 120);
        JsonNode r = Views.MAPPER.readTree(out.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElseThrow(() ->
                new AssertionError("no JSON from node: " + out)));

        JsonNode runtimes = r.get("runtimes");
        assertThat(runtimes.isArray()).isTrue();
        assertThat(runtimes.findValuesAsText("language")).contains("python");
        JsonNode python = findLanguage(runtimes, "python");
        assertThat(python.get("version").asText()).matches("3\\.\\d+\\.\\d+");
        assertThat(python.get("aliases").toString()).contains("py");

        assertThat(r.get("hello").get("language").asText()).isEqualTo("python");
        assertThat(r.get("hello").get("version").asText()).isEqualTo(python.get("version").asText());
        assertThat(r.get("hello").get("run").get("stdout").asText()).isEqualTo("hi from stdin\n");
        assertThat(r.get("hello").get("run").get("code").asInt()).isZero();
        assertThat(r.get("hello").get("run").get("signal").isNull()).isTrue();
        assertThat(r.get("hello").get("run").get("output").asText()).isEqualTo("hi from stdin\n");

        // piston-client sends args ["1", "2", "3"] unless told otherwise
        assertThat(r.get("argv").get("run").get("stdout").asText()).isEqualTo("['1', '2', '3']\n");
        if (runtimes.findValuesAsText("language").contains("javascript")) {
            assertThat(r.get("js").get("run").get("stdout").asText()).isEqualTo("42\n");
        }
        JsonNode failure = r.get("failure").get("run");
        assertThat(failure.get("code").asInt()).isEqualTo(1);
        assertThat(failure.get("stderr").asText()).contains("ValueError: boom");
        assertThat(failure.get("status").asText()).isEqualTo("RE");

        JsonNode timeout = r.get("timeout").get("run");
        assertThat(timeout.get("status").asText()).isEqualTo("TO");
        assertThat(timeout.get("signal").asText()).isEqualTo("SIGKILL");

        assertThat(r.get("files").get("run").get("stdout").asText()).isEqualTo("from a file\n");
        assertThat(r.get("unknown").get("message").asText()).isEqualTo("cobol-* runtime is unknown");
        assertThat(r.get("anonymous").get("status").asInt()).isEqualTo(401);
        assertThat(r.get("anonymous").get("message").asText()).contains("API key");
    }

    private static JsonNode findLanguage(JsonNode runtimes, String language) {
        for (JsonNode n : runtimes) {
            if (n.get("language").asText().equals(language)) {
                return n;
            }
        }
        throw new AssertionError("no " + language + " in " + runtimes);
    }

    private static String run(List<String> command, int timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile(work, "out", ".txt");
        Process p = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
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
