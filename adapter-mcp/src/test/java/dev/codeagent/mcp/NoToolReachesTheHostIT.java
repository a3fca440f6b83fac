package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No tool that runs code reaches the machine the server runs on: a marker file planted outside the sandbox is never
 * read, and a listener on the host's loopback never sees a connection, whichever tool runs the probe (execute_code in
 * Python and in C, run_cell, the program of a solve_task). Each probe prints that it tried, so a probe that never ran
 * cannot pass.
 */
class NoToolReachesTheHostIT {

    @Test
    void probesFromEveryToolFindNeitherTheMarkerNorTheListener(@TempDir Path dir) throws Exception {
        String secret = "marker-" + UUID.randomUUID();
        Path marker = dir.resolve("host-marker.txt");
        Files.writeString(marker, secret);
        AtomicInteger connections = new AtomicInteger();
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread accept = new Thread(() -> {
                while (!listener.isClosed()) {
                    try (Socket s = listener.accept()) {
                        connections.incrementAndGet();
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            accept.setDaemon(true);
            accept.start();
            int port = listener.getLocalPort();
            String python = String.join("\n",
                    "import socket",
                    "try:",
                    "    print('READ ' + open(" + quoted(marker.toString()) + ").read())",
                    "except Exception as e:",
                    "    print('no read: ' + type(e).__name__)",
                    "try:",
                    "    socket.create_connection(('127.0.0.1', " + port + "), timeout=3).sendall(b'x')",
                    "    print('CONNECTED')",
                    "except Exception as e:",
                    "    print('no connect: ' + type(e).__name__)",
                    "");
            String c = String.join("\n",
                    "#include <stdio.h>",
                    "#include <string.h>",
                    "#include <arpa/inet.h>",
                    "#include <sys/socket.h>",
                    "int main(void) {",
                    "  char buf[256] = {0};",
                    "  FILE *f = fopen(" + quoted(marker.toString()) + ", \"r\");",
                    "  if (f && fgets(buf, sizeof buf, f)) printf(\"READ %s\\n\", buf); else printf(\"no read\\n\");",
                    "  int s = socket(AF_INET, SOCK_STREAM, 0);",
                    "  struct sockaddr_in a; memset(&a, 0, sizeof a); a.sin_family = AF_INET; a.sin_port = htons(" + port + ");",
                    "  a.sin_addr.s_addr = htonl(0x7f000001);",
                    "  if (s >= 0 && connect(s, (struct sockaddr *) &a, sizeof a) == 0) printf(\"CONNECTED\\n\"); else printf(\"no connect\\n\");",
                    "  return 0;",
                    "}",
                    "");
            Path replies = dir.resolve("replies.jsonl");
            Files.writeString(replies, new ObjectMapper().writeValueAsString(Map.of("reply", "```python\n" + python + "```")) + "\n",
                    StandardCharsets.UTF_8);
            List<String> server = NodeClients.server(Map.of("generator.kind", "replay", "generator.replay.file", replies.toString()));

            NodeClients.Result r = NodeClients.run(NodeClients.install(), List.of("node", "host.mjs"),
                    Map.of("SERVER", NodeClients.json(server), "PYTHON_PROBE", python, "C_PROBE", c), 300);

            assertThat(r.exit()).as(r.output()).isZero();
            JsonNode results = new ObjectMapper().readTree(r.output().lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
                    .orElseThrow(() -> new AssertionError("no results: " + r.output())));
            // what each probe printed: the program's stdout (the results also carry the probe's code, which names both)
            Map<String, String> printed = Map.of(
                    "python", results.get("python").get("structuredContent").get("stdout").asText(),
                    "c", results.get("c").get("structuredContent").get("stdout").asText(),
                    "cell", results.get("cell").get("content").toString(),
                    "solve", results.get("solve").get("structuredContent").get("output").asText());
            printed.forEach((tool, out) -> {
                assertThat(out).as(tool + " ran its probe").contains("no read").contains("no connect");
                assertThat(out).as(tool).doesNotContain("READ ").doesNotContain("CONNECTED");
            });
            assertThat(r.output()).as("anything the tools answered").doesNotContain(secret);
            assertThat(connections.get()).as("connections the listener on the host's loopback accepted").isZero();
        }
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
