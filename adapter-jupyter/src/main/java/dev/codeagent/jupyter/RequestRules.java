package dev.codeagent.jupyter;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import java.math.BigDecimal;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a request's content must hold before the kernel acts on it, by the Jupyter messaging spec (5.3): the fields a
 * handler reads, each of the JSON type it expects and in range. A client holding the connection key can still send
 * anything; whatever these rules refuse is answered with an error reply naming the field, instead of reaching a
 * handler that would throw (or a binding that would stop the channel's thread). Fields a handler does not read are
 * not looked at, as the spec asks kernels to ignore what they do not know.
 */
final class RequestRules {

    /** Requests the control channel serves; the rest of the protocol belongs on the shell channel. */
    static final Set<String> CONTROL = Set.of("kernel_info_request", "interrupt_request", "shutdown_request");

    private RequestRules() {
    }

    /** {@code x_request} answers with {@code x_reply}; null for a message that asks for no reply (comm messages). */
    static String replyType(String msgType) {
        return msgType.endsWith("_request") && msgType.length() > "_request".length()
                ? msgType.substring(0, msgType.length() - "_request".length()) + "_reply"
                : null;
    }

    /** Why {@code content} is refused for {@code msgType}, as one line; empty when the kernel may act on it. */
    static Optional<String> check(String msgType, JsonObject content) {
        Check c = new Check(content);
        switch (msgType) {
            case "execute_request":
                c.string("code", true);
                for (String flag : new String[] {"silent", "store_history", "allow_stdin", "stop_on_error"}) {
                    c.bool(flag, false);
                }
                c.stringMap("user_expressions");
                break;
            case "complete_request":
                c.cursor();
                break;
            case "inspect_request":
                c.cursor();
                c.integer("detail_level", false, 0, 1);
                break;
            case "is_complete_request":
                c.string("code", true);
                break;
            case "history_request":
                c.oneOf("hist_access_type", Set.of("range", "tail", "search"));
                c.bool("output", false);
                c.bool("raw", false);
                c.integer("session", false, Integer.MIN_VALUE, Integer.MAX_VALUE);
                c.integer("start", false, Integer.MIN_VALUE, Integer.MAX_VALUE);
                c.integer("stop", false, Integer.MIN_VALUE, Integer.MAX_VALUE);
                c.integer("n", false, 0, Integer.MAX_VALUE);
                c.string("pattern", false);
                c.bool("unique", false);
                break;
            case "comm_info_request":
                c.string("target_name", false);
                break;
            case "shutdown_request":
                // required: a restart that was asked for in a form we cannot read must not become a plain shutdown
                c.bool("restart", true);
                break;
            case "comm_open":
                c.string("comm_id", true);
                c.string("target_name", true);
                c.object("data");
                break;
            case "comm_msg":
            case "comm_close":
                c.string("comm_id", true);
                c.object("data");
                break;
            default:
                // kernel_info_request, interrupt_request: nothing in their content is read
                break;
        }
        return Optional.ofNullable(c.problem);
    }

    /** Checks fields in order and keeps the first problem. */
    private static final class Check {
        private final JsonObject content;
        private String problem;

        Check(JsonObject content) {
            this.content = content;
        }

        private JsonElement field(String name, boolean required) {
            if (problem != null) {
                return null;
            }
            JsonElement e = content.get(name);
            if (e == null || e.isJsonNull()) {
                if (required) {
                    problem = name + " is required";
                }
                return null;
            }
            return e;
        }

        String string(String name, boolean required) {
            JsonElement e = field(name, required);
            if (e == null) {
                return null;
            }
            if (!(e instanceof JsonPrimitive p && p.isString())) {
                problem = name + " must be a string, was " + describe(e);
                return null;
            }
            return p.getAsString();
        }

        void bool(String name, boolean required) {
            JsonElement e = field(name, required);
            if (e != null && !(e instanceof JsonPrimitive p && p.isBoolean())) {
                problem = name + " must be true or false, was " + describe(e);
            }
        }

        Long integer(String name, boolean required, long min, long max) {
            JsonElement e = field(name, required);
            if (e == null) {
                return null;
            }
            if (!(e instanceof JsonPrimitive p && p.isNumber())) {
                problem = name + " must be a whole number, was " + describe(e);
                return null;
            }
            String text = p.getAsString();
            BigDecimal v;
            try {
                // the length check first: a number of a million digits would take long to convert
                v = text.length() > 40 ? null : new BigDecimal(text);
            } catch (NumberFormatException notANumber) {
                v = null;
            }
            if (v == null || v.compareTo(BigDecimal.valueOf(min)) < 0 || v.compareTo(BigDecimal.valueOf(max)) > 0) {
                problem = name + " must be between " + min + " and " + max + ", was " + abbreviate(text);
                return null;
            }
            if (v.stripTrailingZeros().scale() > 0) {
                problem = name + " must be a whole number, was " + abbreviate(text);
                return null;
            }
            return v.longValueExact();
        }

        void object(String name) {
            JsonElement e = field(name, false);
            if (e != null && !e.isJsonObject()) {
                problem = name + " must be an object, was " + describe(e);
            }
        }

        void stringMap(String name) {
            JsonElement e = field(name, false);
            if (e == null) {
                return;
            }
            if (!e.isJsonObject()) {
                problem = name + " must be an object of strings, was " + describe(e);
                return;
            }
            for (Map.Entry<String, JsonElement> entry : e.getAsJsonObject().entrySet()) {
                if (!(entry.getValue() instanceof JsonPrimitive p && p.isString())) {
                    problem = name + "." + abbreviate(entry.getKey()) + " must be a string, was " + describe(entry.getValue());
                    return;
                }
            }
        }

        void oneOf(String name, Set<String> values) {
            String v = string(name, true);
            if (v != null && !values.contains(v)) {
                problem = name + " must be one of " + String.join(", ", new java.util.TreeSet<>(values)) + ", was '"
                        + abbreviate(v) + "'";
            }
        }

        /** {@code code} and a {@code cursor_pos} inside it, counted in code points as the spec (5.2 on) counts. */
        void cursor() {
            String code = string("code", true);
            if (code == null) {
                return;
            }
            int length = code.codePointCount(0, code.length());
            integer("cursor_pos", true, 0, length);
            if (problem != null && problem.startsWith("cursor_pos must be between")) {
                problem = problem.replaceFirst("must be between 0 and \\d+", "must be between 0 and " + length
                        + " (the length of code)");
            }
        }
    }

    /** The JSON type of a value, with a short excerpt of it, for "must be a string, was an object". */
    static String describe(JsonElement e) {
        if (e.isJsonObject()) {
            return "an object";
        }
        if (e.isJsonArray()) {
            return "an array";
        }
        if (e.isJsonNull()) {
            return "null";
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        if (p.isBoolean()) {
            return p.getAsString();
        }
        if (p.isNumber()) {
            return "the number " + abbreviate(p.getAsString());
        }
        return "the string \"" + abbreviate(p.getAsString()) + "\"";
    }

    static String abbreviate(String s) {
        String line = s.replaceAll("[\\r\\n\\t]+", " ");
        return line.length() <= 40 ? line : line.substring(0, 40) + "…";
    }
}
