package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./codeagent mcp} as a desktop agent starts it (docs/mcp.md's {@code command}/{@code args}): the launcher hands
 * it to the MCP server's entry point in the distribution's jars, stdout carries JSON-RPC and nothing else, and a
 * mistyped command line is one line on stderr with status 2.
 */
class McpLauncherIT {

    private static final Path ROOT = Path.of(System.getenv().getOrDefault("CODEAGENT_REPO_ROOT", "..")).toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private ProcessBuilder launcher(String... args) throws java.io.IOException {
        List<String> command = new ArrayList<>(List.of(ROOT.resolve("codeagent").toString(), "mcp"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        pb.environment().put("CODEAGENT_SKIP_BUILD", "1");
        pb.environment().put("HOME", dir.toString());
        Path config = dir.resolve("empty.yaml");
        Files.writeString(config, "{}\n");
        pb.environment().put("CODEAGENT_CONFIG", config.toString());
        return pb;
    }

    @Test
    void anAgentStartsItThroughTheLauncherAndRunsCode() throws Exception {
        Process p = launcher("--sandbox", "process", "--set", "store.kind=memory").redirectError(dir.resolve("err.txt").toFile()).start();
        try {
            OutputStream in = p.getOutputStream();
            in.write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"execute_code\","
                    + "\"arguments\":{\"language\":\"python\",\"code\":\"print(6 * 7)\"}}}\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            List<JsonNode> lines = new ArrayList<>();
            String line;
            while ((line = out.readLine()) != null) {
                // every line on stdout is a JSON-RPC message: a stray line would break the client's reading
                lines.add(new ObjectMapper().readTree(line));
                if (lines.get(lines.size() - 1).path("id").asInt() == 2) {
                    break;
                }
            }
            in.close();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isZero();
            assertThat(lines).allSatisfy(m -> assertThat(m.get("jsonrpc").asText()).isEqualTo("2.0"));
            assertThat(lines.get(0).at("/result/serverInfo/name").asText()).isEqualTo("codeagent");
            assertThat(lines.get(lines.size() - 1).at("/result/structuredContent/stdout").asText())
                    .as(Files.readString(dir.resolve("err.txt"))).isEqualTo("42\n");
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aMistypedCommandLineIsOneLineOnStderr() throws Exception {
        Process p = launcher("--sandbx", "process").start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(err.strip()).isEqualTo("codeagent mcp: unknown argument '--sandbx' (see 'codeagent mcp --help')");
        assertThat(p.getInputStream().readAllBytes()).isEmpty();
    }
}
