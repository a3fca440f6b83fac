package dev.codeagent.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.command.FieldError;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.LimitField;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.command.Utf8;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.http.ProblemException.Type;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Piston v2 wire format ({@code POST /api/v2/execute}, {@code GET /api/v2/runtimes}) over the same
 * executor, so Piston clients work unchanged. Field names, defaults and error messages follow Piston;
 * unknown fields are ignored as Piston does, but a field of the wrong type is still a 400 naming it.
 *
 * <p>Differences, by nature of the sandbox: there is no compile stage (every language here is
 * interpreted), so {@code compile_*} fields are checked and otherwise ignored and no {@code compile}
 * object is returned. {@code output} is both streams in arrival order, as each tier recorded it. Base64 and hex
 * files are written as their bytes.
 */
final class PistonApi {

    private static final Logger log = LoggerFactory.getLogger(PistonApi.class);

    /** The request body of {@code POST /api/v2/execute}. */
    record ExecuteBody(String language, String version, List<FileBody> files, String stdin, List<String> args,
            @JsonProperty("run_timeout") Double runTimeout,
            @JsonProperty("compile_timeout") Double compileTimeout,
            @JsonProperty("run_memory_limit") Double runMemoryLimit,
            @JsonProperty("compile_memory_limit") Double compileMemoryLimit,
            @JsonProperty("run_cpu_time") Double runCpuTime,
            @JsonProperty("compile_cpu_time") Double compileCpuTime) {
    }

    /** One file of a Piston request. */
    record FileBody(String name, String content, String encoding) {
    }

    /**
     * A runtime as Piston lists it.
     *
     * @param compiled whether it has a compile stage (then {@code compile} comes before {@code run})
     */
    record Runtime(Language language, String name, List<String> aliases, String runtime, boolean compiled) {
    }

    private static final Map<Language, Runtime> RUNTIMES = new EnumMap<>(Map.of(
            Language.PYTHON, new Runtime(Language.PYTHON, "python", List.of("py", "py3", "python3"), null, false),
            Language.JAVASCRIPT, new Runtime(Language.JAVASCRIPT, "javascript",
                    List.of("node-javascript", "node-js", "javascript", "js", "node"), "node", false),
            Language.BASH, new Runtime(Language.BASH, "bash", List.of("sh"), null, false),
            // the compiled ones as Piston names them (its gcc, go, java and rust packages)
            Language.C, new Runtime(Language.C, "c", List.of("gcc"), "gcc", true),
            Language.CPP, new Runtime(Language.CPP, "c++", List.of("cpp", "g++"), "gcc", true),
            Language.JAVA, new Runtime(Language.JAVA, "java", List.of(), null, true),
            Language.GO, new Runtime(Language.GO, "go", List.of("go", "golang"), null, true),
            Language.RUST, new Runtime(Language.RUST, "rust", List.of("rs"), null, true)));

    /**
     * How to learn each language's version in the sandbox itself: the interpreter's own, or the compiler's (asked from
     * Bash, whose PATH has the toolchain: compiling a probe would cost a compile stage per language).
     */
    private static final Map<Language, Program> VERSION_PROBES = new EnumMap<>(Map.of(
            Language.PYTHON, new Program(Language.PYTHON, "import platform\nprint(platform.python_version())\n"),
            Language.JAVASCRIPT, new Program(Language.JAVASCRIPT, "console.log(process.versions.node)\n"),
            Language.BASH, new Program(Language.BASH, "echo \"${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}.${BASH_VERSINFO[2]}\"\n"),
            Language.C, new Program(Language.BASH, "gcc -dumpfullversion\n"),
            Language.CPP, new Program(Language.BASH, "g++ -dumpfullversion\n"),
            Language.JAVA, new Program(Language.BASH, "javac -J-Xmx64m -version 2>&1 | cut -d' ' -f2\n"),
            Language.GO, new Program(Language.BASH, "go env GOVERSION | sed 's/^go//'\n"),
            Language.RUST, new Program(Language.BASH, "rustc --version | cut -d' ' -f2\n")));

    /** Piston's names of the limits it can set. */
    private static final Map<String, String> PISTON_NAMES = Map.of(
            "limits." + LimitField.TIMEOUT.wireName(), "run_timeout",
            "limits." + LimitField.CPU_TIME.wireName(), "run_cpu_time",
            "limits." + LimitField.MEMORY.wireName(), "run_memory_limit");

    private static final Map<String, String> COMPILE_NAMES = Map.of(
            "compileLimits." + LimitField.TIMEOUT.wireName(), "compile_timeout",
            "compileLimits." + LimitField.CPU_TIME.wireName(), "compile_cpu_time",
            "compileLimits." + LimitField.MEMORY.wireName(), "compile_memory_limit");

    private final ExecuteCode executeCode;
    private final InputPolicy policy;
    private final ResourceLimits compileDefaults;
    private final ResourceLimits defaults;
    private final Set<Language> supported;
    private final CompletableFuture<Map<Language, String>> versions;

    PistonApi(ExecuteCode executeCode, java.util.Set<Language> supported, CodeAgentConfig config) {
        this.executeCode = executeCode;
        this.policy = ApiRequests.policy(config);
        this.defaults = config.limits().toResourceLimits();
        this.compileDefaults = config.limits().compileLimits();
        this.supported = java.util.Set.copyOf(supported);
        // the versions are those of the interpreters the sandbox really runs (host or image), asked once
        this.versions = CompletableFuture.supplyAsync(this::detectVersions, r -> {
            Thread t = new Thread(r, "piston-versions");
            t.setDaemon(true);
            t.start();
        });
    }

    private Map<Language, String> detectVersions() {
        Map<Language, String> found = new EnumMap<>(Language.class);
        for (Language l : supported) {
            String version = "0.0.0";
            try {
                Execution e = executeCode.execute(new ExecutionRequest(VERSION_PROBES.get(l), "", List.of(),
                        ResourceLimits.defaults().withWallTime(Duration.ofSeconds(10))));
                String out = e.stdout().text().trim();
                if (e.ok() && out.matches("\\d+(\\.\\d+){0,3}")) {
                    version = out;
                } else {
                    log.warn("could not learn the {} version: {} {}", l.id(), e.outcome(), e.detail() == null ? "" : e.detail());
                }
            } catch (RuntimeException ex) {
                log.warn("could not learn the {} version: {}", l.id(), ex.getMessage());
            }
            found.put(l, version);
        }
        return found;
    }

    private Map<Language, String> versions() {
        try {
            return versions.get(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        } catch (ExecutionException | TimeoutException e) {
            return Map.of();
        }
    }

    /** The version of the language's interpreter the sandbox runs, or 0.0.0 when it could not be learnt. */
    String version(Language l) {
        return versions().getOrDefault(l, "0.0.0");
    }

    /** {@code GET /api/v2/runtimes}. */
    ArrayNode runtimes() {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (Runtime rt : RUNTIMES.values()) {
            if (!supported.contains(rt.language())) {
                continue;
            }
            ObjectNode n = out.addObject();
            n.put("language", rt.name());
            n.put("version", version(rt.language()));
            ArrayNode aliases = n.putArray("aliases");
            rt.aliases().forEach(aliases::add);
            if (rt.runtime() != null) {
                n.put("runtime", rt.runtime());
            }
        }
        return out;
    }

    /** {@code GET /api/v2/packages}: what is installed, read-only (the runtimes are the sandbox's image or host). */
    ArrayNode packages() {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (Runtime rt : RUNTIMES.values()) {
            if (supported.contains(rt.language())) {
                out.addObject().put("language", rt.name()).put("language_version", version(rt.language())).put("installed", true);
            }
        }
        return out;
    }

    /**
     * {@code GET /v1/languages}: each language the sandbox runs, with its interpreter's version, the other
     * names {@code /v1} accepts for it (each checked against the parser that reads them) and whether it
     * is compiled.
     */
    ArrayNode languages() {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (Language l : Language.values()) {
            if (!supported.contains(l)) {
                continue;
            }
            Runtime rt = RUNTIMES.get(l);
            ObjectNode n = out.addObject();
            n.put("id", l.id());
            n.put("version", version(l));
            ArrayNode aliases = n.putArray("aliases");
            java.util.stream.Stream.concat(rt.aliases().stream(), java.util.stream.Stream.of(rt.name(), "nodejs"))
                    .filter(a -> !a.equals(l.id()) && Language.fromId(a).equals(Optional.of(l)))
                    .distinct().sorted().forEach(aliases::add);
            n.put("compiled", rt.compiled());
        }
        return out;
    }

    /** Translates a Piston request. @throws ProblemException 400 with Piston's wording */
    ExecutionRequest request(ExecuteBody body) {
        if (body.language() == null || body.language().isBlank()) {
            throw pistonError("language", "language is required as a string");
        }
        if (body.files() == null) {
            throw pistonError("files", "files is required as an array");
        }
        for (int i = 0; i < body.files().size(); i++) {
            FileBody f = body.files().get(i);
            if (f == null || f.content() == null) {
                throw pistonError("files[" + i + "].content", "files[" + i + "].content is required as a string");
            }
        }
        Runtime rt = runtime(body.language()).orElse(null);
        String selector = body.version() == null ? "*" : body.version().trim();
        if (rt == null || !matches(version(rt.language()), selector)) {
            throw pistonError("language", JsonBodies.abbreviate(body.language(), 40) + "-" + JsonBodies.abbreviate(selector, 40)
                    + " runtime is unknown");
        }

        // Piston's wire format: 0 and -1 mean the default, values are whole numbers; the caps are this door's policy
        long maxTimeout = policy.max(LimitField.TIMEOUT);
        long maxMemory = policy.max(LimitField.MEMORY);
        Long runTimeout = constraint("run_timeout", body.runTimeout(), maxTimeout);
        Long compileTimeout = constraint("compile_timeout", body.compileTimeout(), maxTimeout);
        Long runMemory = constraint("run_memory_limit", body.runMemoryLimit(), maxMemory);
        Long compileMemory = constraint("compile_memory_limit", body.compileMemoryLimit(), maxMemory);
        Long runCpu = constraint("run_cpu_time", body.runCpuTime(), policy.max(LimitField.CPU_TIME));
        Long compileCpu = constraint("compile_cpu_time", body.compileCpuTime(), policy.max(LimitField.CPU_TIME));
        ResourceLimits compileLimits = limits(compileDefaults, "compileLimits", COMPILE_NAMES, compileTimeout, compileCpu,
                compileMemory);
        ResourceLimits limits = limits(defaults, "limits", PISTON_NAMES, runTimeout, runCpu, runMemory);

        // Piston runs the first utf8 file, under its own name, and places the others beside it; base64 and hex files
        // are written as the bytes they decode to (Buffer.from(content, encoding)), text or not
        String main = null;
        String mainName = null;
        Map<String, String> others = new LinkedHashMap<>();
        Map<String, String> binary = new LinkedHashMap<>();
        for (int i = 0; i < body.files().size(); i++) {
            FileBody f = body.files().get(i);
            String encoding = f.encoding() == null ? "utf8" : f.encoding();
            boolean named = f.name() != null && !f.name().isBlank();
            String name = named ? f.name() : "file" + i + ".code";
            if (!encoding.equals("utf8")) {
                binary.put(name, Base64.getEncoder().encodeToString(bytes(f.content(), encoding, i)));
            } else if (main == null) {
                main = f.content();
                // unnamed, it keeps this server's main.<ext> rather than Piston's file0.code: only argv[0] differs
                mainName = named ? f.name() : null;
            } else {
                others.put(name, f.content());
            }
        }
        if (main == null) {
            throw pistonError("files", "files must include at least one utf8 encoded file");
        }
        java.util.Set<String> allNames = new java.util.LinkedHashSet<>(others.keySet());
        allNames.addAll(binary.keySet());
        String badNames = FileNames.problem(allNames);
        if (badNames != null) {
            throw pistonError("files", badNames);
        }
        List<String> args = body.args() == null ? List.of() : body.args();
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i) == null || args.get(i).indexOf('\0') >= 0) {
                throw pistonError("args[" + i + "]", "args[" + i + "] must be a string without NUL characters");
            }
            String tooLong = ApiRequests.argProblem(args.get(i));
            if (tooLong != null) {
                throw pistonError("args[" + i + "]", "args[" + i + "]: " + tooLong);
            }
        }
        if (args.stream().mapToLong(Utf8::bytes).sum() > ApiRequests.MAX_ARGS_BYTES) {
            throw pistonError("args", "args: at most " + ApiRequests.MAX_ARGS_BYTES + " bytes in all");
        }
        String stdin = body.stdin() == null ? "" : body.stdin();
        if (!stdin.endsWith("\n")) {
            // as Piston does: programs reading a line never meet end-of-file first
            stdin += "\n";
        }
        try {
            return new ExecutionRequest(new Program(rt.language(), main, others, mainName, binary), stdin, args, limits, null,
                    compileLimits);
        } catch (IllegalArgumentException e) {
            throw pistonError("files", e.getMessage());
        }
    }

    /**
     * A stage's limits: {@code base} (the run's or the compile stage's defaults), each within this door's caps, with
     * Piston's values (milliseconds, bytes) where given; a timeout lowers the CPU limit with it.
     *
     * @param names Piston's field names by our limit paths, to name the one that is wrong
     */
    private ResourceLimits limits(ResourceLimits base, String path, Map<String, String> names, Long timeoutMs, Long cpuMs,
            Long memoryBytes) {
        LimitOverrides overrides = LimitOverrides.NONE;
        if (timeoutMs != null) {
            overrides = overrides.with(LimitField.TIMEOUT, timeoutMs);
        }
        if (cpuMs != null) {
            overrides = overrides.with(LimitField.CPU_TIME, cpuMs);
        }
        if (memoryBytes != null) {
            overrides = overrides.with(LimitField.MEMORY, memoryBytes);
        }
        FieldErrors errors = new FieldErrors();
        ResourceLimits limits = overrides.applyTo(base, policy, path, errors);
        if (limits == null) {
            FieldError e = errors.list().get(0);
            String name = names.getOrDefault(e.field(), e.field());
            throw pistonError(name, name + " " + e.message());
        }
        return limits;
    }

    /** A Piston limit: absent, 0 or -1 mean the default; otherwise a whole number up to the configured maximum. */
    private static Long constraint(String name, Double value, long max) {
        if (value == null || value == 0 || value == -1) {
            return null;
        }
        if (value.isNaN() || value.isInfinite() || value != Math.rint(value)) {
            throw pistonError(name, "If specified, " + name + " must be a number");
        }
        if (value < 0) {
            throw pistonError(name, name + " must be non-negative");
        }
        if (value > max) {
            throw pistonError(name, name + " cannot exceed the configured limit of " + max);
        }
        return value.longValue();
    }

    private static byte[] bytes(String content, String encoding, int index) {
        switch (encoding) {
            case "base64":
                try {
                    return Base64.getMimeDecoder().decode(content);
                } catch (IllegalArgumentException e) {
                    throw pistonError("files[" + index + "].content", "files[" + index + "].content is not valid base64");
                }
            case "hex":
                try {
                    return HexFormat.of().parseHex(content);
                } catch (IllegalArgumentException e) {
                    throw pistonError("files[" + index + "].content", "files[" + index + "].content is not valid hex");
                }
            default:
                throw pistonError("files[" + index + "].encoding", "files[" + index + "].encoding must be one of utf8, base64, hex");
        }
    }

    Optional<Runtime> runtime(String language) {
        String l = language.trim();
        for (Runtime rt : RUNTIMES.values()) {
            if (supported.contains(rt.language()) && (rt.name().equals(l) || rt.aliases().contains(l))) {
                return Optional.of(rt);
            }
        }
        return Language.fromId(l).filter(supported::contains).map(RUNTIMES::get);
    }

    /** Whether {@code version} satisfies a Piston {@code version}: an npm semver range, as Piston matches it. */
    static boolean matches(String version, String selector) {
        return VersionRanges.satisfies(version, selector);
    }

    /**
     * The Piston response for an execution: {@code compile} for a compiled language, then {@code run}; when the compile
     * stage failed, {@code run} is the compile stage again (Piston's backward compatibility: clients read
     * {@code run.stdout} whatever happened).
     */
    ObjectNode response(Language language, Execution e) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("language", RUNTIMES.get(language).name());
        n.put("version", version(language));
        if (e.compile() != null) {
            n.set("compile", PistonStages.stageView(e.compile()));
        }
        if (e.outcome() == Outcome.COMPILATION_ERROR && e.compile() != null) {
            n.set("run", PistonStages.stageView(e.compile()));
        } else {
            n.set("run", PistonStages.stageView(e));
        }
        return n;
    }

    /** The name Piston gives a language's runtime ({@code c++}). */
    String runtimeName(Language language) {
        return RUNTIMES.get(language).name();
    }

    private static ProblemException pistonError(String field, String message) {
        return new ProblemException(Type.VALIDATION, message, List.of(new ProblemException.FieldError(field, message)), null, Map.of());
    }
}
