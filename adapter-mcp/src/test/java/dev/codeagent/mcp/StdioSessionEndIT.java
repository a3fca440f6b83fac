package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kernel ends with the MCP session: when the client closes the server's stdin (a desktop agent quitting), the
 * server exits by itself, status 0, and every process it started for the session's kernel is gone with it.
 */
class StdioSessionEndIT {

    @Test
    void closingStdinEndsTheServerAndItsKernel() throws Exception {
        Process server = new ProcessBuilder(NodeClients.server(Map.of())).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            OutputStream in = server.getOutputStream();
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}");
            assertThat(answer(out, 1).has("result")).isTrue();
            send(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
            send(in, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"run_cell\","
                    + "\"arguments\":{\"code\":\"x = 6 * 7\\nprint(x)\"}}}");
            JsonNode cell = answer(out, 2);
            assertThat(cell.at("/result/isError").asBoolean()).as(cell.toString()).isFalse();
            assertThat(cell.at("/result/content").toString()).contains("42");
            List<ProcessHandle> kernel = server.descendants().toList();
            assertThat(kernel).as("the session's kernel runs below the server").isNotEmpty();

            in.close();

            assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the server ends when its client goes").isTrue();
            assertThat(server.exitValue()).isZero();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (kernel.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(kernel.stream().filter(ProcessHandle::isAlive).map(p -> p.pid() + " " + p.info().command().orElse("?")))
                    .as("processes of the kernel still alive").isEmpty();
        } finally {
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
        }
    }

    private static void send(OutputStream in, String message) throws java.io.IOException {
        in.write((message + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The answer to request {@code id}, skipping notifications; fails when the server ends first. */
    private static JsonNode answer(BufferedReader out, int id) throws java.io.IOException {
        String line;
        while ((line = out.readLine()) != null) {
            JsonNode m = new ObjectMapper().readTree(line);
            if (m.path("id").asInt(-1) == id) {
                return m;
            }
        }
        throw new AssertionError("the server ended before answering " + id);
    }
}
