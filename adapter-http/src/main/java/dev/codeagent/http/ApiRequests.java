package dev.codeagent.http;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.FieldError;
import dev.codeagent.http.ProblemException.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The request bodies of the {@code /v1} API and their translation into domain requests: every
 * field is checked, every problem is collected and reported by field name.
 */
final class ApiRequests {

    static final int MAX_ARGS = 256;
    static final int MAX_PROCESSES = 1024;
    static final long MAX_OUTPUT_BYTES = 8L * 1024 * 1024;
    static final long MAX_FILE_BYTES = 64L * 1024 * 1024;
    static final int MAX_PROMPT_CHARS = 64 * 1024;
    /** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN) and all of them over a quarter of the stack. */
    static final int MAX_ARG_BYTES = 64 * 1024;
    static final int MAX_ARGS_BYTES = 1024 * 1024;

    /** Body of {@code POST /v1/executions}. */
    record ExecutionBody(String language, String code, String stdin, List<String> args, Map<String, String> files, LimitsBody limits) {
    }

    /** Resource limits a request may set; absent ones take the configured defaults. */
    record LimitsBody(Long timeoutMs, Long cpuTimeMs, Long memoryBytes, Integer maxProcesses, Long maxOutputBytes, Long maxFileBytes) {
    }

    /** Body of {@code POST /v1/runs}: the fields of a task file. */
    record RunBody(String prompt, String language, String tests, String expectedOutput, String stdin, LimitsBody limits,
            Integer maxAttempts) {
    }

    private final CodeAgentConfig config;
    private final Set<Language> supported;

    ApiRequests(CodeAgentConfig config, Set<Language> supported) {
        this.config = config;
        this.supported = Set.copyOf(supported);
    }

    ExecutionRequest execution(ExecutionBody body) {
        List<FieldError> errors = new ArrayList<>();
        Language language = language(body.language(), errors);
        if (body.code() == null) {
            errors.add(new FieldError("code", "required: the program's source"));
        }
        List<String> args = body.args() == null ? List.of() : body.args();
        if (args.size() > MAX_ARGS) {
            errors.add(new FieldError("args", "at most " + MAX_ARGS + " arguments, got " + args.size()));
        }
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i) == null) {
                errors.add(new FieldError("args[" + i + "]", "must be a string, not null"));
            } else if (args.get(i).indexOf('\0') >= 0) {
                errors.add(new FieldError("args[" + i + "]", "contains a NUL character"));
            } else if (argProblem(args.get(i)) != null) {
                errors.add(new FieldError("args[" + i + "]", argProblem(args.get(i))));
            }
        }
        if (args.stream().filter(a -> a != null).mapToLong(ApiRequests::utf8Bytes).sum() > MAX_ARGS_BYTES) {
            errors.add(new FieldError("args", "at most " + MAX_ARGS_BYTES + " bytes in all"));
        }
        Map<String, String> files = body.files() == null ? Map.of() : body.files();
        files.forEach((name, content) -> {
            if (content == null) {
                errors.add(new FieldError("files." + name, "must be a string, not null"));
            }
        });
        String badNames = FileNames.problem(files.keySet());
        if (badNames != null) {
            errors.add(new FieldError("files", badNames));
        }
        ResourceLimits limits = limits(body.limits(), errors);
        Program program = null;
        if (errors.isEmpty()) {
            try {
                program = new Program(language, body.code(), files);
            } catch (IllegalArgumentException e) {
                errors.add(new FieldError(e.getMessage().startsWith("file name") ? "files" : "code", e.getMessage()));
            }
        }
        if (!errors.isEmpty()) {
            throw problem(errors);
        }
        return new ExecutionRequest(program, body.stdin(), args, limits);
    }

    Task task(RunBody body) {
        List<FieldError> errors = new ArrayList<>();
        if (body.prompt() == null || body.prompt().isBlank()) {
            errors.add(new FieldError("prompt", "required: what the code should do"));
        } else if (body.prompt().length() > MAX_PROMPT_CHARS) {
            errors.add(new FieldError("prompt", "at most " + MAX_PROMPT_CHARS + " characters"));
        }
        Language language = body.language() == null ? Language.PYTHON : language(body.language(), errors);
        if (body.language() == null && !supported.contains(Language.PYTHON)) {
            errors.add(new FieldError("language", "required here: this sandbox cannot run python; supported: " + supportedIds()));
        }
        noNul(errors, "prompt", body.prompt());
        noNul(errors, "tests", body.tests());
        noNul(errors, "expectedOutput", body.expectedOutput());
        int maxAttempts = body.maxAttempts() == null ? config.solve().maxAttempts() : body.maxAttempts();
        if (maxAttempts < 1 || maxAttempts > Task.MAX_ATTEMPTS_CAP) {
            errors.add(new FieldError("maxAttempts", "must be between 1 and " + Task.MAX_ATTEMPTS_CAP + ", was " + maxAttempts));
        }
        ResourceLimits limits = limits(body.limits(), errors);
        if (!errors.isEmpty()) {
            throw problem(errors);
        }
        try {
            return new Task(body.prompt(), language, body.tests(), body.expectedOutput(), body.stdin(), limits, maxAttempts);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("task", e.getMessage());
        }
    }

    /** What is wrong with one argument the kernel would refuse to pass (the sandbox would fail), or null. */
    static String argProblem(String arg) {
        return utf8Bytes(arg) > MAX_ARG_BYTES ? "at most " + MAX_ARG_BYTES + " bytes per argument" : null;
    }

    static long utf8Bytes(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            // a surrogate pair is 4 bytes in UTF-8: 2 per half
            n += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    /** The task's texts become program source or a prompt: a NUL there would only fail later, inside the run. */
    private static void noNul(List<FieldError> errors, String field, String value) {
        if (value != null && value.indexOf('\0') >= 0) {
            errors.add(new FieldError(field, "contains a NUL character at offset " + value.indexOf('\0')));
        }
    }

    /** The language by id or alias; adds an error listing the supported ones when it is unknown or not supported here. */
    Language language(String id, List<FieldError> errors) {
        if (id == null) {
            errors.add(new FieldError("language", "required; supported: " + supportedIds()));
            return null;
        }
        Language language = Language.fromId(id).orElse(null);
        if (language == null || !supported.contains(language)) {
            errors.add(new FieldError("language", "'" + JsonBodies.abbreviate(id, 40) + "' is not supported; supported: " + supportedIds()));
            return null;
        }
        return language;
    }

    String supportedIds() {
        return supported.stream().map(Language::id).collect(Collectors.toCollection(TreeSet::new)).stream()
                .collect(Collectors.joining(", "));
    }

    private ResourceLimits limits(LimitsBody body, List<FieldError> errors) {
        ResourceLimits defaults = config.limits().toResourceLimits();
        long maxTimeout = HttpConfig.from(config).maxTimeout().toMillis();
        if (defaults.wallTime().toMillis() > maxTimeout) {
            defaults = defaults.withWallTime(Duration.ofMillis(maxTimeout));
        }
        if (body == null) {
            return defaults;
        }
        ResourceLimits l = defaults;
        if (check(errors, "limits.timeoutMs", body.timeoutMs(), 1, maxTimeout, "(http.maxTimeout)")) {
            l = l.withWallTime(Duration.ofMillis(body.timeoutMs()));
        }
        if (check(errors, "limits.cpuTimeMs", body.cpuTimeMs(), 1, maxTimeout, "(http.maxTimeout)")) {
            l = l.withCpuTime(Duration.ofMillis(body.cpuTimeMs()));
        }
        if (check(errors, "limits.memoryBytes", body.memoryBytes(), 16L * ResourceLimits.MIB, HttpConfig.from(config).maxMemory().bytes(),
                "(http.maxMemory)")) {
            l = l.withMemoryBytes(body.memoryBytes());
        }
        if (check(errors, "limits.maxProcesses", body.maxProcesses() == null ? null : body.maxProcesses().longValue(), 1,
                MAX_PROCESSES, "")) {
            l = l.withMaxProcesses(body.maxProcesses());
        }
        if (check(errors, "limits.maxOutputBytes", body.maxOutputBytes(), 1, MAX_OUTPUT_BYTES, "")) {
            l = l.withMaxOutputBytes(body.maxOutputBytes());
        }
        if (check(errors, "limits.maxFileBytes", body.maxFileBytes(), 0, MAX_FILE_BYTES, "")) {
            l = l.withMaxFileBytes(body.maxFileBytes());
        }
        return l;
    }

    private static boolean check(List<FieldError> errors, String field, Long value, long min, long max, String why) {
        if (value == null) {
            return false;
        }
        if (value < min || value > max) {
            errors.add(new FieldError(field, "must be between " + min + " and " + max + (why.isEmpty() ? "" : " " + why)
                    + ", was " + value));
            return false;
        }
        return true;
    }

    private ProblemException problem(List<FieldError> errors) {
        boolean onlyLanguage = errors.stream().allMatch(e -> e.field().equals("language"));
        if (onlyLanguage) {
            return new ProblemException(Type.UNSUPPORTED_LANGUAGE, "language: " + errors.get(0).message(), errors, null,
                    Map.of("supported", supported.stream().map(Language::id).sorted().toList()));
        }
        return ProblemException.invalid(errors);
    }
}
