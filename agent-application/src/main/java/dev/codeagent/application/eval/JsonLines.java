package dev.codeagent.application.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** Reads a JSON Lines file ({@code .jsonl}, or gzip-compressed {@code .jsonl.gz}) into its object lines, turning lines that are not JSON objects into {@link BadLine}s. */
final class JsonLines {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A JSON object and the line it stood on. */
    record Line(int number, JsonNode json) {
    }

    record Read(List<Line> lines, List<BadLine> bad) {
    }

    private JsonLines() {
    }

    /** @throws EvaluationException when the file cannot be read at all */
    static Read read(Path file) {
        String name = file.toString();
        List<Line> lines = new ArrayList<>();
        List<BadLine> bad = new ArrayList<>();
        // decoding replaces malformed bytes rather than failing the whole file on one bad line
        try (InputStream in = open(file);
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String text;
            int number = 0;
            while ((text = reader.readLine()) != null) {
                number++;
                if (text.isBlank()) {
                    continue;
                }
                try {
                    JsonNode node = MAPPER.readTree(text);
                    if (node == null || !node.isObject()) {
                        bad.add(new BadLine(name, number, "not a JSON object"));
                    } else {
                        lines.add(new Line(number, node));
                    }
                } catch (JsonProcessingException e) {
                    bad.add(new BadLine(name, number, "not JSON: " + jsonProblem(e)));
                }
            }
        } catch (NoSuchFileException e) {
            throw new EvaluationException(name + ": no such file");
        } catch (IOException e) {
            throw new EvaluationException(name + ": cannot read: " + e.getMessage(), e);
        }
        return new Read(lines, bad);
    }

    /**
     * The file's bytes, un-gzipped when they start with the gzip magic number: the published datasets
     * come compressed ({@code HumanEval.jsonl.gz}), and the content, not the name, says which it is.
     */
    private static InputStream open(Path file) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file));
        in.mark(2);
        int b1 = in.read();
        int b2 = in.read();
        in.reset();
        if (b1 == 0x1f && b2 == 0x8b) {
            try {
                return new GZIPInputStream(in, 64 * 1024);
            } catch (IOException e) {
                in.close();
                throw new IOException("not a valid gzip file: " + e.getMessage(), e);
            }
        }
        return in;
    }

    /**
     * A list of JSON values sent whole (a server's request) as if each were a line of a file, numbered from 1: those
     * that are not objects are {@link BadLine}s of {@code name}.
     */
    static Read of(String name, java.util.List<JsonNode> values) {
        List<Line> lines = new ArrayList<>();
        List<BadLine> bad = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            JsonNode o = values.get(i);
            if (o == null || !o.isObject()) {
                bad.add(new BadLine(name, i + 1, "not a JSON object"));
            } else {
                lines.add(new Line(i + 1, o));
            }
        }
        return new Read(lines, bad);
    }

    /** Jackson's own words for what is wrong, without its source-location noise. */
    private static String jsonProblem(JsonProcessingException e) {
        String m = e.getOriginalMessage().lines().findFirst().orElse("malformed");
        int noise = m.indexOf(" (start marker at");
        return noise > 0 ? m.substring(0, noise) : m;
    }

    /** The field as text, or null when absent or JSON null. @throws IllegalArgumentException when it is not a string */
    static String string(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string");
        }
        return v.asText();
    }

    static String requiredString(JsonNode node, String field) {
        String s = string(node, field);
        if (s == null) {
            throw new IllegalArgumentException("missing '" + field + "'");
        }
        return s;
    }

    /** A task id: a string or an integer (MBPP numbers its tasks). */
    static String taskId(JsonNode node) {
        JsonNode v = node.get("task_id");
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing 'task_id'");
        }
        if (!(v.isTextual() || v.isIntegralNumber()) || v.asText().isBlank()) {
            throw new IllegalArgumentException("'task_id' must be a non-empty string or an integer");
        }
        return v.asText();
    }

    static List<String> stringList(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            throw new IllegalArgumentException("missing '" + field + "'");
        }
        if (!v.isArray()) {
            throw new IllegalArgumentException("'" + field + "' must be a list of strings");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode e : v) {
            if (!e.isTextual()) {
                throw new IllegalArgumentException("'" + field + "' must be a list of strings");
            }
            out.add(e.asText());
        }
        return out;
    }
}
