package dev.codeagent.cli.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
