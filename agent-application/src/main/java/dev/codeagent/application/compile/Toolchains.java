package dev.codeagent.application.compile;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.ResourceLimits;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How each language is started: the interpreter and its flags for a language that runs from source (the same in every
 * tier, so a program behaves the same), and for a compiled one the toolchain command lines, their environment and the
 * tools a sandbox must have. They are the application's, next to {@link CompilingSandbox} that runs the toolchains,
 * not the domain's: the domain knows that a language is {@linkplain LanguageProfile#compiled() compiled}, not with
 * which flags. The tiers read the interpreters from here when they start one.
 *
 * <p>Each builds into {@link #OUTPUT_DIR} with the toolchain Debian ships: gcc and g++ (GNU dialects, optimised, like a
 * judge's), the JDK's javac and java (serial GC: one GC thread, a heap of half the memory limit, the rest for the JVM's
 * own), Go without cgo and with its caches in /tmp (the sandbox has no other writable place and no network:
 * GOPROXY=off, GOPATH mode), rustc for one crate (no cargo, no crates).
 *
 * <p>Adding a compiled language: its {@link Language} constant and {@link LanguageProfile} (marked compiled), its
 * toolchain here, and its Debian packages on one line of the image recipe ({@code scripts/build-sandbox-image.sh}); the
 * process tier finds its {@link Toolchain#tools()} on the host itself.
 */
public final class Toolchains {

    /** Where the compile stage leaves what it built, relative to the work directory. */
    public static final String OUTPUT_DIR = "codeagent-build";

    /**
     * How one compiled language is built and started. The compile stage is an execution of its own, with the
     * request's compile limits: a Bash script runs {@code compile} in a work directory holding the sources and sends
     * back what it left in {@link #OUTPUT_DIR}; the run stage is a second execution, in a fresh sandbox holding only
     * that output (and the program's other files), that starts {@code run}. Words in braces are filled in:
     * {@code {main}} the main file, {@code {sources}} the main file and the extra files ending in one of
     * {@code sourceExtensions} (one argument each), {@code {out}} the output directory, {@code {heap}} MiB of heap for
     * a runtime that sizes it from a flag, {@code {class}} the main class ({@link LanguageProfile#mainClass}).
     *
     * @param compile the compile command; the compiler's standard output is sent to its standard error (the
     *     stage's own stdout carries what it built)
     * @param run the run command, relative to the work directory; the program's arguments follow it
     * @param sourceExtensions the extensions of extra files that are compiled with the main file ({@code .c})
     * @param environment variables the compiler needs (where Go keeps its build cache)
     * @param archived whether the output is many files (Java's classes, whose names hold {@code $}): then it crosses
     *     as one tar archive the run stage unpacks
     * @param tools the commands the stages start besides Bash's own (the compiler, a runtime, the linker it calls):
     *     a sandbox offers the language only where all of them are on its PATH
     */
    public record Toolchain(List<String> compile, List<String> run, List<String> sourceExtensions,
            Map<String, String> environment, boolean archived, List<String> tools) {

        public Toolchain {
            compile = List.copyOf(compile);
            run = List.copyOf(run);
            sourceExtensions = List.copyOf(sourceExtensions);
            environment = Map.copyOf(environment);
            tools = List.copyOf(tools);
            if (compile.isEmpty() || run.isEmpty() || tools.isEmpty()) {
                throw new IllegalArgumentException("a toolchain needs a compile and a run command and its tools");
            }
        }
    }

    /**
     * How a language that runs from source is started: a command the sandbox looks up on its PATH, then its
     * arguments, then the main file.
     *
     * @param command the interpreter's command name ({@code "python3"})
     * @param flags flags before the file name
     * @param heapFlag a flag that sizes the runtime's heap, with {@code %d} for MiB, where the runtime sizes it
     *     from a flag rather than from rlimits or the cgroup (V8); null: none
     */
    public record Interpreter(String command, List<String> flags, String heapFlag) {

        public Interpreter {
            Objects.requireNonNull(command, "command");
            flags = List.copyOf(flags);
        }

        /** The interpreter's arguments before the file name, for these limits (V8 sizes its heap from a flag, not rlimits). */
        public List<String> args(ResourceLimits limits) {
            if (heapFlag == null) {
                return flags;
            }
            List<String> args = new ArrayList<>(flags);
            // leave a quarter of the limit for code, buffers and the runtime itself
            args.add(String.format(heapFlag, Math.max(8, limits.memoryBytes() * 3 / 4 / (1024 * 1024))));
            return List.copyOf(args);
        }
    }

    private static final Map<Language, Interpreter> INTERPRETERS = Map.of(
            // no bytecode files, no PYTHON* variables, no user site, unbuffered (so what was printed before a
            // kill is not lost). Not -I: it drops the script's directory from sys.path and the program's extra
            // files could not be imported. Not -S: it removes exit() and quit(), which generated code calls.
            Language.PYTHON, new Interpreter("python3", List.of("-B", "-E", "-s", "-u"), null),
            Language.JAVASCRIPT, new Interpreter("node", List.of(), "--max-old-space-size=%d"),
            Language.BASH, new Interpreter("bash", List.of(), null));

    private static final Map<Language, Toolchain> TOOLCHAINS = toolchains();

    private Toolchains() {
    }

    /** The toolchain of a compiled language; empty for a language that runs from source. */
    public static Optional<Toolchain> of(Language language) {
        return Optional.ofNullable(TOOLCHAINS.get(language));
    }

    /** The interpreter of a language that runs from source; empty for a compiled language. */
    public static Optional<Interpreter> interpreter(Language language) {
        return Optional.ofNullable(INTERPRETERS.get(language));
    }

    /**
     * The arguments a language's interpreter takes before the file name, for these limits; none for a compiled
     * language (its run stage starts what it built).
     */
    public static List<String> interpreterArgs(Language language, ResourceLimits limits) {
        return interpreter(language).map(i -> i.args(limits)).orElse(List.of());
    }

    /**
     * The command a sandbox looks up on its PATH to offer a language: its interpreter, or a compiled language's
     * compiler (the first of its {@link Toolchain#tools()}).
     */
    public static String command(Language language) {
        return interpreter(language).map(Interpreter::command)
                .orElseGet(() -> of(language).orElseThrow().tools().get(0));
    }

    private static Map<Language, Toolchain> toolchains() {
        Map<Language, Toolchain> m = new EnumMap<>(Language.class);
        m.put(Language.C, new Toolchain(List.of("gcc", "-std=gnu17", "-O2", "-pipe", "-o", "{out}/main", "{sources}", "-lm"),
                List.of("{out}/main"), List.of(".c"), Map.of(), false, List.of("gcc")));
        m.put(Language.CPP, new Toolchain(List.of("g++", "-std=gnu++17", "-O2", "-pipe", "-o", "{out}/main", "{sources}"),
                List.of("{out}/main"), List.of(".cpp", ".cc", ".cxx"), Map.of(), false, List.of("g++")));
        List<String> jvm = List.of("-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xshare:auto");
        List<String> javac = new ArrayList<>(List.of("javac", "-J-Xmx{heap}m", "-J-XX:TieredStopAtLevel=1"));
        jvm.forEach(f -> javac.add("-J" + f));
        javac.addAll(List.of("-encoding", "UTF-8", "-d", "{out}", "{sources}"));
        List<String> java = new ArrayList<>(List.of("java", "-Xmx{heap}m"));
        java.addAll(jvm);
        java.addAll(List.of("-cp", "{out}", "{class}"));
        m.put(Language.JAVA, new Toolchain(javac, java, List.of(".java"), Map.of(), true, List.of("javac", "java")));
        m.put(Language.GO, new Toolchain(List.of("go", "build", "-ldflags=-s -w", "-o", "{out}/main", "{sources}"),
                List.of("{out}/main"), List.of(".go"),
                Map.of("GOCACHE", "/tmp/codeagent-go/cache", "GOPATH", "/tmp/codeagent-go", "GO111MODULE", "off",
                        "GOPROXY", "off", "CGO_ENABLED", "0", "GOFLAGS", "-buildvcs=false"), false, List.of("go")));
        m.put(Language.RUST, new Toolchain(List.of("rustc", "--edition", "2021", "-O", "-C", "strip=symbols", "-o", "{out}/main",
                "{main}"), List.of("{out}/main"), List.of(), Map.of(), false, List.of("rustc", "cc")));
        for (Language l : Language.values()) {
            if (LanguageProfile.of(l).compiled() == INTERPRETERS.containsKey(l)) {
                throw new IllegalStateException(l.id() + (INTERPRETERS.containsKey(l) ? " has an interpreter but is compiled"
                        : " runs from source but has no interpreter"));
            }
            if (LanguageProfile.of(l).compiled() != m.containsKey(l)) {
                throw new IllegalStateException(l.id() + (m.containsKey(l) ? " has a toolchain but is not compiled"
                        : " is compiled but has no toolchain"));
            }
        }
        return Map.copyOf(m);
    }
}
