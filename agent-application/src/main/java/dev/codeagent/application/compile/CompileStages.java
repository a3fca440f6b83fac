package dev.codeagent.application.compile;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.CompilerDiagnostics;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The two stages of a compiled language's program, as {@link CompilingSandbox} runs them: a program run by any tier
 * as two executions of its own (each in a fresh sandbox, with all
 * of the tier's isolation): the <em>compile stage</em> runs the compiler on the sources under the request's compile
 * limits and sends back what it built on its standard output; the <em>run stage</em> starts what was built, under
 * the request's limits, with the request's stdin and arguments. The run stage starts the program with {@code exec},
 * so its exit status and signal are the program's own, from the supervisor's wait.
 *
 * <p>Why two sandboxes rather than two steps in one: each stage's limits, measurements and outcome are the tier's
 * ordinary ones (nothing to rebase at a stage boundary), every tier gets compiled languages from this one class, and
 * the compiler is never in the sandbox the program runs in. What crosses between them is bytes (the built program),
 * from a sandbox back into a sandbox: the host never runs or interprets it, it only checks the names.
 *
 * <p>Both stages are Bash programs, which the tier runs as any other; the command lines are {@link Toolchains}'.
 */
public final class CompileStages {

    /** The compile stage's script in its work directory. */
    static final String COMPILE_SCRIPT = "codeagent-compile.sh";
    /** The run stage's script in its work directory. */
    static final String RUN_SCRIPT = "codeagent-run.sh";
    private static final String ARCHIVE = "classes.tar";
    private static final Pattern BUILT_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}");

    /** One execution of the tier (a Bash stage). */
    @FunctionalInterface
    public interface Stage {
        Execution run(ExecutionRequest request);
    }

    private CompileStages() {
    }

    /**
     * Compiles and runs {@code request}'s program with {@code stage}.
     *
     * @param isolation the tier's, for a program refused before either stage (a file named as a stage's script)
     * @return the run stage's execution with {@link Execution#compile()} set; when the compile stage failed, an
     *     execution with outcome {@link Outcome#COMPILATION_ERROR} (the compiler's own failure or a compile limit) or
     *     {@link Outcome#SANDBOX_ERROR} (the sandbox's), which never ran the program
     * @throws IllegalArgumentException when the language is not compiled
     */
    public static Execution execute(ExecutionRequest request, Stage stage, Isolation isolation) {
        Built built = compile(request, stage, isolation);
        return built.failure() != null ? built.failure() : run(built, request.stdin(), stage);
    }

    /**
     * A compile stage's result: what was built, ready to run with any input, or why nothing was.
     *
     * @param request the request it was built for (its limits and arguments apply to every run)
     * @param compileStage the compile stage as the caller sees it (the compiler's messages), or null when refused
     * @param runProgram the run stage's program, or null when the compile stage failed
     * @param failure the execution to report instead of a run, or null when it built
     */
    public record Built(ExecutionRequest request, Execution compileStage, Program runProgram, Execution failure) {
    }

    /**
     * The compile stage of {@code request}'s program, once: {@link #run} then runs what it built as often as needed
     * (a judge's several test inputs), each run in a sandbox of its own.
     *
     * @throws IllegalArgumentException when the language is not compiled
     */
    public static Built compile(ExecutionRequest request, Stage stage, Isolation isolation) {
        Objects.requireNonNull(stage, "stage");
        Program program = request.program();
        LanguageProfile profile = LanguageProfile.of(program.language());
        if (Toolchains.of(program.language()).isEmpty()) {
            throw new IllegalArgumentException(program.language().id() + " is not compiled");
        }
        String mainFile = mainFile(program, profile);
        Map<String, String> sources = new LinkedHashMap<>();
        sources.put(mainFile, program.source());
        sources.putAll(program.files());
        String refused = refusal(program, sources, mainFile);
        if (refused != null) {
            return new Built(request, null, null, Execution.policyViolation(refused, isolation));
        }
        ResourceLimits compileLimits = request.compileLimitsOr(ResourceLimits.compileDefaults());
        Program compileProgram = new Program(Language.BASH, compileScript(program, profile, mainFile, compileLimits),
                sources, COMPILE_SCRIPT, program.binaryFiles());
        Execution built = stage.run(new ExecutionRequest(compileProgram, "", List.of(), compileLimits));
        Execution shown = shown(built);
        if (built.outcome() == Outcome.SANDBOX_ERROR) {
            return new Built(request, shown, null, built.withCompile(shown));
        }
        if (!built.ok() || built.exitCode() == null || built.exitCode() != 0) {
            return new Built(request, shown, null, Execution.compilationFailed(shown, failure(built, compileLimits)));
        }
        Optional<Map<String, String>> output = builtFiles(built.stdout());
        if (output.isEmpty()) {
            return new Built(request, shown, null,
                    Execution.compilationFailed(shown, "the compile stage sent back no program it built"));
        }
        Map<String, String> binaries = new LinkedHashMap<>(program.binaryFiles());
        output.get().forEach((name, b64) -> binaries.put(Toolchains.OUTPUT_DIR + "/" + name, b64));
        Program runProgram = new Program(Language.BASH, runScript(program, profile, request.limits()), sources, RUN_SCRIPT,
                binaries);
        return new Built(request, shown, runProgram, null);
    }

    /**
     * The run stage of what {@link #compile} built, with {@code stdin}, the request's arguments and limits.
     *
     * @throws IllegalArgumentException when nothing was built
     */
    public static Execution run(Built built, String stdin, Stage stage) {
        if (built.runProgram() == null) {
            throw new IllegalArgumentException("nothing was built: " + built.failure().detail());
        }
        ExecutionRequest r = built.request();
        return stage.run(new ExecutionRequest(built.runProgram(), stdin, r.args(), r.limits())).withCompile(built.compileStage());
    }

    /** Why the program's files cannot go through the stages, or null. */
    private static String refusal(Program program, Map<String, String> sources, String mainFile) {
        if (sources.containsKey(COMPILE_SCRIPT) || sources.containsKey(RUN_SCRIPT)
                || program.binaryFiles().containsKey(COMPILE_SCRIPT) || program.binaryFiles().containsKey(RUN_SCRIPT)) {
            return "a file of the program is named " + COMPILE_SCRIPT + " or " + RUN_SCRIPT
                    + ", the names of the compile and run stages' own scripts";
        }
        if (program.binaryFiles().keySet().stream().anyMatch(f -> f.startsWith(Toolchains.OUTPUT_DIR + "/"))
                || sources.keySet().stream().anyMatch(f -> f.startsWith(Toolchains.OUTPUT_DIR + "/"))) {
            return "a file of the program is in " + Toolchains.OUTPUT_DIR + "/, where the compile stage puts what it builds";
        }
        if (sources.size() != program.files().size() + 1 || program.binaryFiles().containsKey(mainFile)) {
            return "another file of the program is named " + mainFile + ", the name the main source is compiled under";
        }
        return null;
    }

    /**
     * The main file's name: as the caller named it, else {@code main} and the extension — for Java, the class it
     * starts from, since javac wants a public class in a file of its name.
     */
    public static String mainFile(Program program, LanguageProfile profile) {
        String defaultName = "main" + program.language().extension();
        if (!program.mainFileName().equals(defaultName)) {
            return program.mainFileName();
        }
        String mainClass = profile.mainClass(program.source());
        if (mainClass == null || mainClass.contains("$")) {
            return defaultName;
        }
        // the class's own name, without its package: javac wants a public class in a file of that name
        return mainClass.substring(mainClass.lastIndexOf('.') + 1) + program.language().extension();
    }

    /**
     * The compile stage's script: the compiler with its stdout on stderr (the stage's stdout is the channel of what it
     * built), then each built file as a line with its name and a line with its base64.
     */
    public static String compileScript(Program program, LanguageProfile profile, String mainFile, ResourceLimits limits) {
        Toolchains.Toolchain c = toolchain(program);
        StringBuilder s = new StringBuilder("set -u\n");
        new java.util.TreeMap<>(c.environment()).forEach((k, v) -> s.append("export ").append(k).append('=').append(quoted(v)).append('\n'));
        s.append("mkdir -p ").append(Toolchains.OUTPUT_DIR).append(" || exit 125\n");
        s.append(command(c.compile(), program, profile, mainFile, limits)).append(" >&2\n");
        s.append("status=$?\n[ $status -eq 0 ] || exit $status\n");
        s.append("cd ").append(Toolchains.OUTPUT_DIR).append(" || exit 125\n");
        if (c.archived()) {
            s.append("printf '%s\\n' ").append(ARCHIVE).append(" && tar -cf - . | base64 -w0 && printf '\\n' || exit 125\n");
        } else {
            s.append("for f in *; do\n  if [ -f \"$f\" ]; then printf '%s\\n' \"$f\" && base64 -w0 -- \"$f\" && printf '\\n' || exit 125; fi\n"
                    + "done\n");
        }
        return s.toString();
    }

    /** The run stage's script: unpack or mark executable what was built, then become the program. */
    public static String runScript(Program program, LanguageProfile profile, ResourceLimits limits) {
        Toolchains.Toolchain c = toolchain(program);
        StringBuilder s = new StringBuilder();
        String out = Toolchains.OUTPUT_DIR;
        if (c.archived()) {
            s.append("tar -xf ").append(out).append('/').append(ARCHIVE).append(" -C ").append(out).append(" && rm -f ")
                    .append(out).append('/').append(ARCHIVE)
                    .append(" || { echo 'codeagent-boot: cannot unpack the compiled program' >&2; exit 125; }\n");
        } else {
            s.append("chmod 0755 ").append(out).append("/* || { echo 'codeagent-boot: cannot make the compiled program executable' >&2; exit 125; }\n");
        }
        s.append("exec ").append(command(c.run(), program, profile, mainFile(program, profile), limits)).append(" \"$@\"\n");
        return s.toString();
    }

    /** A command with its words in braces filled in, each argument single-quoted for Bash. */
    private static String command(List<String> template, Program program, LanguageProfile profile, String mainFile,
            ResourceLimits limits) {
        List<String> args = new ArrayList<>();
        String mainClass = profile.mainClass(program.source());
        for (String word : template) {
            if (word.equals("{sources}")) {
                args.add(mainFile);
                program.files().keySet().stream()
                        .filter(f -> toolchain(program).sourceExtensions().stream().anyMatch(f::endsWith))
                        .forEach(args::add);
                continue;
            }
            args.add(word.replace("{main}", mainFile)
                    .replace("{out}", Toolchains.OUTPUT_DIR)
                    .replace("{heap}", Long.toString(Math.max(16, limits.memoryBytes() / 2 / ResourceLimits.MIB)))
                    .replace("{class}", mainClass == null ? "" : mainClass));
        }
        StringBuilder b = new StringBuilder();
        for (String a : args) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(quoted(a));
        }
        return b.toString();
    }

    private static Toolchains.Toolchain toolchain(Program program) {
        return Toolchains.of(program.language())
                .orElseThrow(() -> new IllegalArgumentException(program.language().id() + " is not compiled"));
    }

    private static String quoted(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * The compile stage as the caller sees it: the compiler's messages (its stdout was sent to stderr), not the
     * built program's bytes.
     */
    private static Execution shown(Execution built) {
        return new Execution(built.outcome(), built.exitCode(), built.signal(), CapturedOutput.EMPTY, built.stderr(),
                built.wallTime(), built.cpuTime(), built.peakMemoryBytes(), built.detail(), built.isolation(), null,
                built.stderr(), null);
    }

    /** Why the compile stage failed, in one line. */
    private static String failure(Execution built, ResourceLimits limits) {
        switch (built.outcome()) {
            case TIME_LIMIT:
                return "the compiler ran out of time (compile limits: wall " + limits.wallTime().toMillis() + " ms, CPU "
                        + limits.cpuTime().toMillis() + " ms)";
            case MEMORY_LIMIT:
                return "the compiler ran out of memory (compile limit: " + limits.memoryBytes() / ResourceLimits.MIB + " MiB)";
            case OUTPUT_LIMIT:
                return "the compiler's output or what it built passed the compile output limit ("
                        + limits.maxOutputBytes() / ResourceLimits.MIB + " MiB)";
            default:
                break;
        }
        Optional<CompilerDiagnostics.Diagnostic> first = CompilerDiagnostics.firstError(built.stderr().text());
        if (first.isPresent()) {
            return "compilation failed: " + first.get().summary();
        }
        String how = built.exitCode() != null ? "the compiler exited with status " + built.exitCode()
                : built.signal() != null ? "the compiler was killed by signal " + built.signal() : "the compiler failed";
        return "compilation failed: " + how;
    }

    /** The files the compile stage sent back, name to base64; empty when its output is not that. */
    static Optional<Map<String, String>> builtFiles(CapturedOutput stdout) {
        if (stdout.truncated()) {
            return Optional.empty();
        }
        List<String> lines = stdout.text().lines().toList();
        if (lines.isEmpty() || lines.size() % 2 != 0) {
            return Optional.empty();
        }
        Map<String, String> files = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i += 2) {
            String name = lines.get(i);
            String b64 = lines.get(i + 1);
            if (!BUILT_NAME.matcher(name).matches() || files.containsKey(name)) {
                return Optional.empty();
            }
            try {
                java.util.Base64.getDecoder().decode(b64);
            } catch (IllegalArgumentException notBase64) {
                return Optional.empty();
            }
            files.put(name, b64);
        }
        return Optional.of(files);
    }
}
