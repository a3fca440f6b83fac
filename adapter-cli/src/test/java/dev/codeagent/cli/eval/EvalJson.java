package dev.codeagent.cli.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reading and writing the JSON Lines the eval tests exchange with the command. */
final class EvalJson {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EvalJson() {
    }

    static JsonNode read(String line) {
        try {
            return JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<JsonNode> readLines(Path file) throws IOException {
        return Files.readAllLines(file).stream().map(EvalJson::read).toList();
    }

    /** A dataset's problems by task id (as text: MBPP's are numbers), in file order. */
    static Map<String, JsonNode> byTaskId(Path file) throws IOException {
        Map<String, JsonNode> problems = new LinkedHashMap<>();
        for (JsonNode p : readLines(file)) {
            problems.put(p.get("task_id").asText(), p);
        }
        return problems;
    }

    static ObjectNode object() {
        return JSON.createObjectNode();
    }

    static String line(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
