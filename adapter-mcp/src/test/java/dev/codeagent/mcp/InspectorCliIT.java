package dev.codeagent.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP Inspector's command line ({@code @modelcontextprotocol/inspector-cli}), a client we did not write, lists the
 * tools and the run template and calls every tool; each call starts the server over stdio as an agent would.
 */
class InspectorCliIT {

    private static Path inspector;
    private static List<String> server;

    @BeforeAll
    static void install(@TempDir Path dir) throws Exception {
        // the CLI finds its own package.json relative to the working directory: run it from its build directory
        inspector = NodeClients.install().resolve("node_modules/@modelcontextprotocol/inspector-cli/build").toAbsolutePath();
        Path replies = dir.resolve("replies.jsonl");
        Files.writeString(replies, "{\"reply\": \"```python\\ndef add(a, b):\\n    return a + b\\n```\"}\n", StandardCharsets.UTF_8);
        server = NodeClients.server(Map.of("generator.kind", "replay", "generator.replay.file", replies.toString()));
    }

    private static JsonNode inspect(String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of("node", "index.js"));
        command.addAll(server);
        command.addAll(List.of(options));
        NodeClients.Result r = NodeClients.run(inspector, command, Map.of(), 180);
        assertThat(r.exit()).as(r.output()).isZero();
        String out = r.output();
        return new ObjectMapper().readTree(out.substring(out.indexOf('{')));
    }

    @Test
    void listsTheToolsAndTheRunTemplate() throws Exception {
        JsonNode tools = inspect("--method", "tools/list");
        List<String> names = new ArrayList<>();
        tools.get("tools").forEach(t -> names.add(t.get("name").asText()));
        assertThat(names).containsExactlyInAnyOrder("execute_code", "list_languages", "run_cell", "read_file", "restart_kernel",
                "solve_task");
        tools.get("tools").forEach(t -> assertThat(t.get("inputSchema").get("additionalProperties").asBoolean(true))
                .as(t.get("name") + " refuses unknown arguments").isFalse());

        JsonNode templates = inspect("--method", "resources/templates/list");
        assertThat(templates.get("resourceTemplates").get(0).get("uriTemplate").asText()).isEqualTo("codeagent://runs/{id}");
    }

    @Test
    void callsEveryTool() throws Exception {
        JsonNode exec = inspect("--method", "tools/call", "--tool-name", "execute_code", "--tool-arg", "language=python",
                "code=print(6 * 7)", "limits={\"timeoutMs\": 5000}");
        assertThat(exec.get("structuredContent").get("stdout").asText()).isEqualTo("42\n");

        JsonNode languages = inspect("--method", "tools/call", "--tool-name", "list_languages");
        assertThat(languages.get("structuredContent").get("languages").toString()).contains("\"python\"");

        JsonNode cell = inspect("--method", "tools/call", "--tool-name", "run_cell", "--tool-arg", "code=x = 20\nprint(x * 2 + 2)");
        assertThat(cell.get("isError").asBoolean()).as(cell.toString()).isFalse();
        assertThat(cell.get("content").toString()).contains("42");

        // a server of its own per call: no kernel yet, and the answer says where files come from
        JsonNode read = inspect("--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=out.txt");
        assertThat(read.get("isError").asBoolean()).isTrue();
        assertThat(read.get("content").get(0).get("text").asText()).contains("run_cell");

        JsonNode restart = inspect("--method", "tools/call", "--tool-name", "restart_kernel");
        assertThat(restart.get("isError").asBoolean()).as(restart.toString()).isFalse();

        JsonNode solved = inspect("--method", "tools/call", "--tool-name", "solve_task", "--tool-arg", "prompt=add two numbers",
                "language=python", "tests=assert add(2, 3) == 5", "maxAttempts=2");
        assertThat(solved.get("structuredContent").get("status").asText()).as(solved.toString()).isEqualTo("SOLVED");

        JsonNode bad = inspect("--method", "tools/call", "--tool-name", "execute_code", "--tool-arg", "language=python", "code=print(1)",
                "limits={\"memoryBytes\": 99999999999}");
        assertThat(bad.get("isError").asBoolean()).isTrue();
        assertThat(bad.get("content").get(0).get("text").asText()).contains("mcp.maxMemory");
    }
}
