package dev.codeagent.application.command;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A task as a user asks for it, before it is checked: the fields of a task file and of the body of
 * {@code POST /v1/runs}, each null when not given. Both front doors build one (from a JSON tree or
 * from their flags) and turn it into a {@link Task} with {@link #toTask}, under their own
 * {@link InputPolicy}; every problem comes back as a {@link FieldError}.
 *
 * <pre>{@code
 * {"prompt": "…", "language": "python", "tests": "assert f(1) == 2", "expectedOutput": null, "stdin": "",
 *  "limits": {"timeoutMs": 5000, "cpuTimeMs": "5s", "memoryBytes": "256m", "maxProcesses": 64,
 *             "maxOutputBytes": 1048576, "maxFileBytes": "16m", "network": false},
 *  "maxAttempts": 3}
 * }</pre>
 */
public record TaskRequest(String prompt, String language, String tests, String expectedOutput, String stdin,
        LimitOverrides limits, Integer maxAttempts) {

    /** The fields of a task, in the order they are listed to a user. */
    public static final List<String> FIELDS = List.of("prompt", "language", "tests", "expectedOutput", "stdin", "limits", "maxAttempts");

    public TaskRequest {
        limits = limits == null ? LimitOverrides.NONE : limits;
    }

    public static TaskRequest empty() {
        return new TaskRequest(null, null, null, null, null, LimitOverrides.NONE, null);
    }

    /**
     * Reads a task from a JSON-ish tree: a {@link Map} of field name to {@link String}, {@link Number},
     * {@link Boolean}, map or list (null meaning "not given"). Unknown fields and values of the wrong
     * type are added to {@code errors}.
     *
     * @return the request, or null when there were errors
     */
    public static TaskRequest fromTree(Object tree, FieldErrors errors) {
        if (!(tree instanceof Map<?, ?> map)) {
            errors.add("task", "expected one JSON object with the fields " + String.join(", ", FIELDS) + ", got "
                    + LimitField.describe(tree));
            return null;
        }
        boolean ok = true;
        for (Object key : map.keySet()) {
            if (!FIELDS.contains(String.valueOf(key))) {
                errors.add(String.valueOf(key), FieldError.UNKNOWN + "; known: " + String.join(", ", FIELDS));
                ok = false;
            }
        }
        int before = errors.list().size();
        String prompt = text(map, "prompt", errors);
        String language = text(map, "language", errors);
        String tests = text(map, "tests", errors);
        String expectedOutput = text(map, "expectedOutput", errors);
        String stdin = text(map, "stdin", errors);
        LimitOverrides limits = LimitOverrides.fromTree(map.get("limits"), "limits", errors);
        Integer maxAttempts = null;
        Object attempts = map.get("maxAttempts");
        if (attempts instanceof Integer || attempts instanceof Long || attempts instanceof Short) {
            long n = ((Number) attempts).longValue();
            // out of int's range is still out of the task's: say so with the number given
            maxAttempts = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, n));
        } else if (attempts != null) {
            errors.add("maxAttempts", "expected a whole number, got " + LimitField.describe(attempts));
        }
        if (!ok || errors.list().size() > before) {
            return null;
        }
        return new TaskRequest(prompt, language, tests, expectedOutput, stdin, limits, maxAttempts);
    }

    /** This request with every field {@code over} gives replacing this one's: how flags win over a task file. */
    public TaskRequest overriddenBy(TaskRequest over) {
        return new TaskRequest(
                over.prompt != null ? over.prompt : prompt,
                over.language != null ? over.language : language,
                over.tests != null ? over.tests : tests,
                over.expectedOutput != null ? over.expectedOutput : expectedOutput,
                over.stdin != null ? over.stdin : stdin,
                limits.overriddenBy(over.limits),
                over.maxAttempts != null ? over.maxAttempts : maxAttempts);
    }

    /**
     * The task, checked: a prompt that is there and not too long, a language the sandbox runs (python
     * when none is given), texts without NUL characters, 1 to {@value Task#MAX_ATTEMPTS_CAP} attempts
     * and limits within the door's policy.
     *
     * @param defaults the configured limits and number of attempts
     * @param supported the languages the sandbox behind this door runs
     * @return the task, or null when there were errors
     */
    public Task toTask(Defaults defaults, Set<Language> supported, InputPolicy policy, FieldErrors errors) {
        int before = errors.list().size();
        if (prompt == null || prompt.isBlank()) {
            errors.add("prompt", "required: what the code should do");
        } else if (prompt.length() > policy.maxPromptChars()) {
            errors.add("prompt", "at most " + policy.maxPromptChars() + " characters");
        }
        Language lang = null;
        if (language != null) {
            lang = Languages.resolve(language, supported, errors);
        } else if (supported.contains(Language.PYTHON)) {
            lang = Language.PYTHON;
        } else {
            errors.add("language", "required here: this sandbox cannot run python; supported: " + Languages.ids(supported));
        }
        if (lang != null && tests != null && !tests.isBlank() && !Judge.judgesTests(lang)) {
            errors.add("tests", "tests are judged for python only (in a process of their own, out of the code's reach); "
                    + "for " + lang.id() + " give expectedOutput instead");
        }
        noNul("prompt", prompt, errors);
        noNul("tests", tests, errors);
        noNul("expectedOutput", expectedOutput, errors);
        int attempts = maxAttempts != null ? maxAttempts : defaults.maxAttempts();
        if (attempts < 1 || attempts > Task.MAX_ATTEMPTS_CAP) {
            errors.add("maxAttempts", "must be between 1 and " + Task.MAX_ATTEMPTS_CAP + ", was " + attempts);
        }
        ResourceLimits resourceLimits = limits.applyTo(defaults.limits(), policy, "limits", errors);
        if (errors.list().size() > before) {
            return null;
        }
        try {
            return new Task(prompt, lang, tests, expectedOutput, stdin, resourceLimits, attempts);
        } catch (IllegalArgumentException e) {
            errors.add("task", e.getMessage());
            return null;
        }
    }

    /**
     * What a task gets when the request does not say.
     *
     * @param limits the configured limits of an execution
     * @param maxAttempts the configured number of attempts ({@code solve.maxAttempts})
     */
    public record Defaults(ResourceLimits limits, int maxAttempts) {
    }

    private static String text(Map<?, ?> map, String field, FieldErrors errors) {
        Object v = map.get(field);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        errors.add(field, "expected a string, got " + jsonType(v));
        return null;
    }

    private static String jsonType(Object v) {
        return v instanceof Number ? "number" : v instanceof Boolean ? "boolean" : v instanceof Map ? "object"
                : v instanceof List ? "array" : v.getClass().getSimpleName();
    }

    /** The task's texts become program source or a prompt: a NUL there would only fail later, inside the run. */
    private static void noNul(String field, String value, FieldErrors errors) {
        if (value != null && value.indexOf('\0') >= 0) {
            errors.add(field, "contains a NUL character at offset " + value.indexOf('\0'));
        }
    }
}
