package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code codeagent mcp} as an agent meets it: the MCP project's TypeScript SDK starts it over stdio and runs
 * {@code src/test/node/session.mjs} (every tool, hostile arguments, a session of cells with a plot, a solve_task
 * with progress, a cancel). The model is a replay of two answers: a wrong one, then a right one.
 */
class TypeScriptClientIT {

    @Test
    void anAgentUsesEveryTool(@TempDir Path dir) throws Exception {
        Path clients = NodeClients.install();
        Path replies = dir.resolve("replies.jsonl");
        Files.writeString(replies, String.join("\n",
                "{\"reply\": \"```python\\ndef add(a, b):\\n    return a - b\\n```\"}",
                "{\"reply\": \"```python\\ndef add(a, b):\\n    return a + b\\n```\"}"), StandardCharsets.UTF_8);
        List<String> server = NodeClients.server(Map.of("generator.kind", "replay", "generator.replay.file", replies.toString()));

        NodeClients.Result r = NodeClients.run(clients, List.of("node", "session.mjs"), Map.of("SERVER", NodeClients.json(server)), 300);

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("ok tools/list", "ok execute_code python", "ok execute_code failure is a tool error",
                "ok hostile arguments", "ok run_cell session", "ok solve_task progress", "ok solve_task cancelled", "ok closed");
    }
}
