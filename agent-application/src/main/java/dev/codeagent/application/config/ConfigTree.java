package dev.codeagent.application.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The config as a tree of JSON nodes, keyed by dotted paths ({@code sandbox.docker.poolSize}): placing a section,
 * merging a file over the defaults, setting one key from text, listing the leaves; each mistake a
 * {@link ConfigException} naming the key and the keys there are. Split from {@link ConfigLoader}, which decides the
 * order of the sources and binds the tree to the sections' records.
 */
final class ConfigTree {

    private ConfigTree() {
    }

    /** Merges {@code from} into {@code into}, failing on keys the defaults do not have. */
    static void merge(ObjectNode into, JsonNode from, String prefix, Map<String, String> retired) {
        Iterator<Map.Entry<String, JsonNode>> fields = from.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            String path = prefix.isEmpty() ? f.getKey() : prefix + "." + f.getKey();
            JsonNode existing = into.get(f.getKey());
            if (existing == null) {
                if (retired.containsKey(path)) {
                    throw replaced(path, retired.get(path));
                }
                throw unknownKey(path, into);
            }
            if (existing.isObject() && f.getValue().isObject()) {
                merge((ObjectNode) existing, f.getValue(), path, retired);
            } else if (existing.isObject() && !f.getValue().isNull()) {
                throw new ConfigException(path + ": expected a section with keys " + keysOf(existing) + ", got a value");
            } else {
                into.set(f.getKey(), f.getValue());
            }
        }
    }

    static ConfigException replaced(String key, String replacement) {
        return new ConfigException(key + " was replaced by " + replacement);
    }

    static ConfigException unknownKey(String path, JsonNode parent) {
        return new ConfigException("unknown config key '" + path + "'; known keys here: " + keysOf(parent));
    }

    static String keysOf(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return String.join(", ", names);
    }

    static void collectLeaves(String prefix, JsonNode node, Map<String, JsonNode> out) {
        Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            String path = prefix.isEmpty() ? f.getKey() : prefix + "." + f.getKey();
            if (f.getValue().isObject()) {
                collectLeaves(path, f.getValue(), out);
            } else {
                out.put(path, f.getValue());
            }
        }
    }

    static void set(ObjectNode tree, String path, String value, Map<String, JsonNode> leaves, String source) {
        JsonNode defaultValue = leaves.get(path);
        if (defaultValue == null) {
            List<String> near = leaves.keySet().stream()
                    .filter(k -> k.startsWith(path.contains(".") ? path.substring(0, path.lastIndexOf('.') + 1) : ""))
                    .collect(Collectors.toList());
            throw new ConfigException("unknown config key '" + path + "' (from " + source + "); known keys: "
                    + String.join(", ", near.isEmpty() ? leaves.keySet() : near));
        }
        String[] parts = path.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            node = (ObjectNode) node.get(parts[i]);
        }
        String last = parts[parts.length - 1];
        if (defaultValue.isArray()) {
            var array = node.putArray(last);
            for (String item : value.split(",")) {
                if (!item.isBlank()) {
                    array.add(item.trim());
                }
            }
        } else if (value.isEmpty() && !defaultValue.isTextual()) {
            node.putNull(last);
        } else {
            // Jackson coerces text to numbers and booleans, and reports what it cannot coerce
            node.set(last, TextNode.valueOf(value));
        }
    }

    /** Puts a section's node at its dotted path, making the sections above it as needed. */
    static void place(ObjectNode root, String path, JsonNode node) {
        String[] names = path.split("\\.");
        ObjectNode parent = root;
        for (int i = 0; i < names.length - 1; i++) {
            JsonNode next = parent.get(names[i]);
            if (next == null) {
                next = parent.putObject(names[i]);
            } else if (!next.isObject()) {
                throw new IllegalStateException("config section " + path + " would replace the key " + names[i]);
            }
            parent = (ObjectNode) next;
        }
        if (parent.has(names[names.length - 1])) {
            throw new IllegalStateException("config section " + path + " is claimed twice or is a key already");
        }
        parent.set(names[names.length - 1], node);
    }

    static Map<String, JsonNode> leaves(JsonNode tree) {
        Map<String, JsonNode> leaves = new LinkedHashMap<>();
        collectLeaves("", tree, leaves);
        return leaves;
    }
}
