package dev.codeagent.mcp;

import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.Utf8;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A tool call's arguments as a model wrote them, read strictly: an unknown name, a wrong type or an oversized string
 * is a field error naming what was sent, collected with the others so that one answer names every mistake. The SDK
 * checks the same against each tool's input schema first; this is the door's own check, so that no argument reaches
 * the application unread whatever a schema validator lets through.
 */
final class ToolArguments {

    private final Map<String, Object> args;
    final FieldErrors errors = new FieldErrors();

    ToolArguments(Map<String, Object> args, Set<String> known) {
        this.args = args == null ? Map.of() : args;
        for (String name : this.args.keySet()) {
            if (!known.contains(name)) {
                errors.add(printable(name), "unknown argument; this tool takes " + String.join(", ", known.stream().sorted().toList()));
            }
        }
    }

    /** A string argument; null when absent (an error when {@code required}). */
    String string(String name, boolean required, long maxBytes) {
        Object v = args.get(name);
        if (v == null) {
            if (required) {
                errors.add(name, "required");
            }
            return null;
        }
        if (!(v instanceof String s)) {
            errors.add(name, "must be a string, got " + kind(v));
            return null;
        }
        long bytes = Utf8.bytes(s);
        if (bytes > maxBytes) {
            errors.add(name, "at most " + maxBytes + " bytes, got " + bytes);
            return null;
        }
        return s;
    }

    /** A whole-number argument; null when absent. */
    Integer integer(String name, int min, int max) {
        Object v = args.get(name);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
            errors.add(name, "must be a whole number, got " + kind(v));
            return null;
        }
        if (n.doubleValue() < min || n.doubleValue() > max) {
            errors.add(name, "must be between " + min + " and " + max + ", got " + n);
            return null;
        }
        return n.intValue();
    }

    /** An object of string values (file name to content); empty when absent. */
    Map<String, String> strings(String name, long maxBytes) {
        Object v = args.get(name);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            errors.add(name, "must be an object of name to text, got " + kind(v));
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        long total = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!(e.getValue() instanceof String s)) {
                errors.add(name + "." + printable(key), "must be a string, got " + kind(e.getValue()));
                continue;
            }
            total += Utf8.bytes(s);
            out.put(key, s);
        }
        if (total > maxBytes) {
            errors.add(name, "at most " + maxBytes + " bytes in all, got " + total);
        }
        return out;
    }

    /** The raw value, for readers of their own ({@code limits}). */
    Object raw(String name) {
        return args.get(name);
    }

    /** What went wrong, as one line a model can act on. */
    String problem() {
        StringBuilder s = new StringBuilder("invalid arguments: ");
        for (int i = 0; i < errors.list().size(); i++) {
            var e = errors.list().get(i);
            s.append(i == 0 ? "" : "; ").append(e.field()).append(": ").append(e.message());
        }
        return s.toString();
    }

    private static String kind(Object v) {
        if (v instanceof String) {
            return "a string";
        }
        if (v instanceof Boolean) {
            return "a boolean";
        }
        if (v instanceof Number) {
            return "the number " + v;
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof java.util.List) {
            return "an array";
        }
        return "null";
    }

    /** A name as sent, cut and without control characters: it is echoed back in the error. */
    private static String printable(String name) {
        String cut = name.length() > 64 ? name.substring(0, 64) + "…" : name;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
