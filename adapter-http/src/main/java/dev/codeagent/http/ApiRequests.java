package dev.codeagent.http;

import com.fasterxml.jackson.annotation.JsonProperty;

import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.Languages;
import dev.codeagent.application.command.LimitField;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.command.TaskRequest;
import dev.codeagent.application.command.Utf8;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.FieldError;
import dev.codeagent.http.ProblemException.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request bodies of the {@code /v1} API and their translation into domain requests: every
 * field is checked, every problem is collected and reported by field name. Tasks and limits are
 * checked by the application's {@link TaskRequest} and {@link LimitOverrides} under this door's
 * {@link #policy}; what stays here is the wire format and what only an execution has (args, files).
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

    /**
     * Body of {@code POST /v1/executions}; {@code limits} is read by {@link LimitOverrides#fromTree}.
     *
     * @param waitForResult {@code wait} on the wire: false: answer 202 at once and keep the result for {@code GET /v1/executions/{id}}; null or true: answer
     *     with the result
     * @param callbackUrl where to POST the submission once it is done (with {@code wait: false} or in a batch)
     */
    record ExecutionBody(String language, String code, String stdin, List<String> args, Map<String, String> files,
            Map<String, Object> limits, Map<String, Object> compileLimits, @JsonProperty("wait") Boolean waitForResult,
            String callbackUrl) {
    }

    /** Body of {@code POST /v1/executions/batch}: executions as {@code POST /v1/executions} takes them. */
    record BatchBody(List<ExecutionBody> submissions) {
    }

    /** Body of {@code POST /v1/runs}: the fields of a task file ({@link TaskRequest}). */
    record RunBody(String prompt, String language, String tests, String expectedOutput, String stdin, Map<String, Object> limits,
            Integer maxAttempts) {
    }

    private final CodeAgentConfig config;
    private final Set<Language> supported;
    private final InputPolicy policy;
    private final ResourceLimits compileDefaults;
    private final ResourceLimits defaults;

    /** @throws IllegalArgumentException when the configured limits are out of the sandbox's ranges */
    ApiRequests(CodeAgentConfig config, Set<Language> supported) {
        this.config = config;
        this.supported = Set.copyOf(supported);
        this.policy = policy(config);
        this.defaults = config.limits().toResourceLimits();
        this.compileDefaults = config.limits().compileLimits();
    }

    /**
     * What a request over HTTP may ask for: limits up to {@code http.maxTimeout} and {@code http.maxMemory}
     * and fixed caps on the rest, prompts up to {@value #MAX_PROMPT_CHARS} characters, never the network.
     */
    static InputPolicy policy(CodeAgentConfig config) {
        long maxTimeout = HttpConfig.from(config).maxTimeout().toMillis();
        return InputPolicy.local()
                .cap(LimitField.TIMEOUT, maxTimeout, "http.maxTimeout")
                .cap(LimitField.CPU_TIME, maxTimeout, "http.maxTimeout")
                .cap(LimitField.MEMORY, HttpConfig.from(config).maxMemory().bytes(), "http.maxMemory")
                .cap(LimitField.MAX_PROCESSES, MAX_PROCESSES, null)
                .cap(LimitField.MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES, null)
                .cap(LimitField.MAX_FILE_BYTES, MAX_FILE_BYTES, null)
                .withoutNetwork()
                .withMaxPromptChars(MAX_PROMPT_CHARS);
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
        if (args.stream().filter(a -> a != null).mapToLong(Utf8::bytes).sum() > MAX_ARGS_BYTES) {
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
        FieldErrors limitErrors = new FieldErrors();
        LimitOverrides overrides = LimitOverrides.fromTree(body.limits(), "limits", limitErrors);
        ResourceLimits limits = overrides == null ? null : overrides.applyTo(defaults, policy, "limits", limitErrors);
        // a compiled language's compile stage: the compile defaults, within the same caps, changed the same way
        LimitOverrides compileOverrides = LimitOverrides.fromTree(body.compileLimits(), "compileLimits", limitErrors);
        ResourceLimits compileLimits = compileOverrides == null ? null
                : compileOverrides.applyTo(ResourceLimits.compileDefaults(), policy, "compileLimits", limitErrors);
        errors.addAll(http(limitErrors));
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
        return new ExecutionRequest(program, body.stdin(), args, limits, null, compileLimits);
    }

    Task task(RunBody body) {
        FieldErrors errors = new FieldErrors();
        LimitOverrides limits = LimitOverrides.fromTree(body.limits(), "limits", errors);
        // the other fields are checked even when the limits are wrong: every problem is named at once
        Task task = new TaskRequest(body.prompt(), body.language(), body.tests(), body.expectedOutput(), body.stdin(),
                limits == null ? LimitOverrides.NONE : limits, body.maxAttempts())
                .toTask(new TaskRequest.Defaults(defaults, config.solve().maxAttempts()), supported, policy, errors);
        if (!errors.isEmpty()) {
            throw problem(http(errors));
        }
        return task;
    }

    /** What is wrong with one argument the kernel would refuse to pass (the sandbox would fail), or null. */
    static String argProblem(String arg) {
        return Utf8.bytes(arg) > MAX_ARG_BYTES ? "at most " + MAX_ARG_BYTES + " bytes per argument" : null;
    }


    /** The language by id or alias; adds an error listing the supported ones when it is unknown or not supported here. */
    Language language(String id, List<FieldError> errors) {
        FieldErrors found = new FieldErrors();
        Language language = Languages.resolve(id, supported, found);
        errors.addAll(http(found));
        return language;
    }

    private static List<FieldError> http(FieldErrors errors) {
        return errors.list().stream().map(e -> new FieldError(e.field(), e.message())).toList();
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
