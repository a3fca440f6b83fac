package dev.codeagent.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.config.Units;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A task as a JSON file ({@code codeagent solve --task-file}). Every field is optional here (flags
 * may supply or override them); unknown fields are refused so that a typo is not silently ignored.
 *
 * <pre>{@code
 * {"prompt": "…", "language": "python", "tests": "assert f(1) == 2", "expectedOutput": null, "stdin": "",
 *  "limits": {"timeoutMs": 5000, "cpuTimeMs": 5000, "memoryBytes": 268435456, "maxProcesses": 64,
 *             "maxOutputBytes": 1048576, "maxFileBytes": 16777216, "network": false},
 *  "maxAttempts": 3}
 * }</pre>
 * Sizes and durations may also be written with units ({@code "memoryBytes": "256m"}, {@code "timeoutMs": "5s"}).
 */
record TaskFile(String prompt, Language language, String tests, String expectedOutput, String stdin,
        JsonNode limits, Integer maxAttempts) {

    private static final List<String> FIELDS = List.of("prompt", "language", "tests", "expectedOutput", "stdin", "limits", "maxAttempts");
    private static final List<String> LIMIT_FIELDS = List.of("timeoutMs", "cpuTimeMs", "memoryBytes", "maxProcesses",
            "maxOutputBytes", "maxFileBytes", "network");

    static TaskFile none() {
        return new TaskFile(null, null, null, null, null, null, null);
    }

    /** @throws UsageException naming the file and what is wrong in it */
    static TaskFile parse(String name, String text) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UsageException(name + ": not valid JSON at line " + e.getLocation().getLineNr() + ": " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new UsageException(name + ": a task file holds one JSON object with the fields " + String.join(", ", FIELDS));
        }
        checkFields(name, "", root, FIELDS);
        String languageId = text(name, root, "language");
        Language language = languageId == null ? null : Language.fromId(languageId).orElseThrow(() -> new UsageException(
                name + ": language: unknown language '" + languageId + "'; known: " + Language.knownIds()));
        JsonNode limits = root.get("limits");
        if (limits != null && !limits.isNull()) {
            if (!limits.isObject()) {
                throw new UsageException(name + ": limits: expected an object with the fields " + String.join(", ", LIMIT_FIELDS));
            }
            checkFields(name, "limits.", limits, LIMIT_FIELDS);
        } else {
            limits = null;
        }
        Integer maxAttempts = null;
        JsonNode attempts = root.get("maxAttempts");
        if (attempts != null && !attempts.isNull()) {
            if (!attempts.canConvertToInt() || !attempts.isIntegralNumber()) {
                throw new UsageException(name + ": maxAttempts: expected a whole number, got " + attempts);
            }
            maxAttempts = attempts.intValue();
        }
        return new TaskFile(text(name, root, "prompt"), language, text(name, root, "tests"),
                text(name, root, "expectedOutput"), text(name, root, "stdin"), limits, maxAttempts);
    }

    /** The base limits with this file's limits applied. @throws UsageException when a value is wrong */
    ResourceLimits applyLimits(String name, ResourceLimits base) {
        if (limits == null) {
            return base;
        }
        ResourceLimits l = base;
        for (Map.Entry<String, JsonNode> e : iterable(limits.fields())) {
            try {
                JsonNode v = e.getValue();
                switch (e.getKey()) {
                    case "timeoutMs":
                        l = l.withWallTime(duration(v));
                        break;
                    case "cpuTimeMs":
                        l = l.withCpuTime(duration(v));
                        break;
                    case "memoryBytes":
                        l = l.withMemoryBytes(bytes(v));
                        break;
                    case "maxProcesses":
                        l = l.withMaxProcesses(Math.toIntExact(bytes(v)));
                        break;
                    case "maxOutputBytes":
                        l = l.withMaxOutputBytes(bytes(v));
                        break;
                    case "maxFileBytes":
                        l = l.withMaxFileBytes(bytes(v));
                        break;
                    case "network":
                        if (!v.isBoolean()) {
                            throw new IllegalArgumentException("expected true or false, got " + v);
                        }
                        l = l.withNetwork(v.booleanValue());
                        break;
                    default:
                        throw new IllegalStateException("unchecked limit field " + e.getKey());
                }
            } catch (IllegalArgumentException | ArithmeticException ex) {
                throw new UsageException(name + ": limits." + e.getKey() + ": " + ex.getMessage());
            }
        }
        return l;
    }

    private static Duration duration(JsonNode v) {
        if (v.isIntegralNumber()) {
            return Duration.ofMillis(v.longValue());
        }
        if (v.isTextual()) {
            return Units.parseDuration(v.textValue());
        }
        throw new IllegalArgumentException("expected milliseconds or a duration like \"5s\", got " + v);
    }

    private static long bytes(JsonNode v) {
        if (v.isIntegralNumber()) {
            return v.longValue();
        }
        if (v.isTextual()) {
            return Units.parseBytes(v.textValue());
        }
        throw new IllegalArgumentException("expected a whole number or a size like \"256m\", got " + v);
    }

    private static void checkFields(String name, String prefix, JsonNode node, List<String> known) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String field = it.next();
            if (!known.contains(field)) {
                throw new UsageException(name + ": unknown field '" + prefix + field + "'; known: " + String.join(", ", known));
            }
        }
    }

    private static String text(String name, JsonNode root, String field) {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new UsageException(name + ": " + field + ": expected a string, got " + v.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return v.textValue();
    }

    private static <T> Iterable<T> iterable(Iterator<T> it) {
        return () -> it;
    }
}
