package dev.codeagent.application.view;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The golden JSON of the views, shared by every door's tests through this module's test-jar. A door's output is
 * compared whole (every field, every value), so a renamed, dropped or added field fails on the door that drifted.
 */
public final class Goldens {

    public static final String SOLVED_RUN = "run-solved.json";
    public static final String CANCELLED_RUN = "run-cancelled.json";
    public static final String RUN_SUMMARY = "run-summary.json";
    public static final String EXECUTION_OK = "execution-ok.json";
    public static final String EXECUTION_COMPILE_ERROR = "execution-compile-error.json";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Fields whose values differ from run to run; {@link #normalised} blanks them so the rest can be compared. */
    private static final Set<String> VOLATILE = Set.of("id", "startedAt", "endedAt", "wallTimeMs", "cpuTimeMs",
            "peakMemoryBytes", "generationTimeMs", "executionTimeMs", "host", "pid");

    private Goldens() {
    }

    public static JsonNode read(String name) {
        try (InputStream in = Goldens.class.getResourceAsStream("golden/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no golden file " + name + " beside " + Goldens.class.getName());
            }
            return MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Asserts that {@code actual} is the golden file {@code name}, field for field and value for value. */
    public static void assertMatches(String name, JsonNode rendered) {
        JsonNode golden = read(name);
        // through text, as a client reads it: a tree built from a long holds a LongNode where the file's parse has an
        // IntNode, and JsonNode equality tells those apart
        JsonNode actual = reparsed(rendered);
        assertThat(fields(actual)).as("the fields of %s", name).isEqualTo(fields(golden));
        assertThat(actual).as("the values of %s", name).isEqualTo(golden);
    }

    private static JsonNode reparsed(JsonNode node) {
        try {
            return MAPPER.readTree(MAPPER.writeValueAsString(node));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A copy of {@code node} with the values that change between runs (ids, times, hosts) replaced by a marker. */
    public static JsonNode normalised(JsonNode node) {
        JsonNode copy = node.deepCopy();
        blank(copy);
        return copy;
    }

    /**
     * Every field's path, array positions collapsed to {@code []}: two outputs with the same paths have the same
     * shape whatever their values, which is what an end-to-end door test can compare with a golden file.
     */
    public static Set<String> fields(JsonNode node) {
        Set<String> paths = new TreeSet<>();
        collect(node, "", paths);
        return paths;
    }

    private static void collect(JsonNode node, String at, Set<String> paths) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> f = it.next();
                String path = at + "/" + f.getKey();
                paths.add(path);
                collect(f.getValue(), path, paths);
            }
        } else if (node.isArray()) {
            node.forEach(n -> collect(n, at + "[]", paths));
        }
    }

    private static void blank(JsonNode node) {
        if (node.isObject()) {
            com.fasterxml.jackson.databind.node.ObjectNode o = (com.fasterxml.jackson.databind.node.ObjectNode) node;
            Iterator<String> names = o.fieldNames();
            java.util.List<String> volatileHere = new java.util.ArrayList<>();
            names.forEachRemaining(n -> {
                if (VOLATILE.contains(n) && !o.get(n).isNull() && o.get(n).isValueNode()) {
                    volatileHere.add(n);
                }
            });
            volatileHere.forEach(n -> o.put(n, "<" + n + ">"));
            o.forEach(Goldens::blank);
        } else if (node.isArray()) {
            node.forEach(Goldens::blank);
        }
    }
}
