package dev.codeagent.bench;

import dev.codeagent.application.compile.CompileStages;
import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.sandbox.docker.DockerSandbox;
import dev.codeagent.sandbox.docker.DockerSandboxConfig;
import dev.codeagent.sandbox.process.ProcessSandbox;
import dev.codeagent.sandbox.process.ProcessSandboxConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Compile and run of a hello-world per compiled language: through the process sandbox (a compile stage and a run
 * stage, each in a sandbox of its own) next to the same two scripts run bare by Bash from the same JVM in a temp
 * directory (the compiler with the same flags, then the binary), interleaved so that noise hits both alike; and,
 * when a Docker engine and the image are there, through the docker tier with its warm pool. Prints p50 of each
 * and the ratio to bare.
 *
 * <p>Usage: {@code CompiledLanguagesBench [iterations] [warm-up] [docker]} (defaults 10, 2, yes).
 */
public final class CompiledLanguagesBench {

    private static final Map<Language, String> HELLO = Map.of(
            Language.C, "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
            Language.CPP, "#include <iostream>\nint main() { std::cout << \"hello\" << std::endl; }\n",
            Language.JAVA, "public class Main { public static void main(String[] a) { System.out.println(\"hello\"); } }\n",
            Language.GO, "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hello\") }\n",
            Language.RUST, "fn main() { println!(\"hello\"); }\n");

    private CompiledLanguagesBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        boolean docker = args.length <= 2 || !args[2].equals("no");
        try (ProcessSandbox tier = new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT)) {
            // as the composition runs programs: compiled by the one decorator, in two stages through the tier
            Sandbox sandbox = CompilingSandbox.over(tier);
            System.out.printf(Locale.ROOT, "compile + run of hello-world, %d runs after %d warm-up, %d cores%n", n, warmup,
                    Runtime.getRuntime().availableProcessors());
            System.out.printf(Locale.ROOT, "%-6s %12s %14s %8s %16s %16s%n", "", "bare p50 ms", "process p50 ms", "ratio",
                    "compile stage ms", "run stage ms");
            for (Language l : List.of(Language.C, Language.CPP, Language.JAVA, Language.GO, Language.RUST)) {
                if (!sandbox.languages().contains(l)) {
                    System.out.printf(Locale.ROOT, "%-6s not on this host%n", l.id());
                    continue;
                }
                ExecutionRequest request = ExecutionRequest.of(l, HELLO.get(l));
                long[] bare = new long[n];
                long[] boxed = new long[n];
                long[] compile = new long[n];
                long[] run = new long[n];
                for (int i = -warmup; i < n; i++) {
                    long b = bare(request);
                    long t0 = System.nanoTime();
                    Execution e = checked(sandbox.execute(request), l);
                    long s = (System.nanoTime() - t0) / 1_000_000;
                    if (i >= 0) {
                        bare[i] = b;
                        boxed[i] = s;
                        compile[i] = e.compile().wallTime().toMillis();
                        run[i] = e.wallTime().toMillis();
                    }
                }
                long pb = p50(bare);
                long ps = p50(boxed);
                System.out.printf(Locale.ROOT, "%-6s %12d %14d %7.2fx %16d %16d%n", l.id(), pb, ps, (double) ps / pb,
                        p50(compile), p50(run));
            }
        }
        if (docker) {
            // as before the compile pool (every compile stage in a fresh container), C only, then with it
            dockerPool(n, warmup, null, List.of(Language.C));
            dockerPool(n, warmup, ResourceLimits.compileDefaults(), List.of(Language.C, Language.CPP, Language.JAVA,
                    Language.GO, Language.RUST));
        }
    }

    /**
     * The docker tier with its warm pool of the run's size (poolSize 2, the default) and, with {@code compileLimits},
     * its compile pool (containers made for compile stages, kept warm from the first one on).
     */
    private static void dockerPool(int n, int warmup, ResourceLimits compileLimits, List<Language> languages) {
        DockerSandbox docker;
        try {
            docker = DockerSandbox.create(DockerSandboxConfig.defaults(), ResourceLimits.defaults(), compileLimits,
                    IsolationMode.BEST_EFFORT);
        } catch (RuntimeException unavailable) {
            System.out.println("docker tier: not measured (" + unavailable.getMessage() + ")");
            return;
        }
        try (Sandbox s = CompilingSandbox.over(docker)) {
            System.out.printf(Locale.ROOT, "%-6s %14s %16s %16s   (%s)%n", "docker", "p50 ms", "compile stage ms",
                    "run stage ms", compileLimits == null ? "no compile pool" : "compile pool");
            for (Language l : languages) {
                if (!s.languages().contains(l)) {
                    continue;
                }
                ExecutionRequest request = ExecutionRequest.of(l, HELLO.get(l));
                long[] total = new long[n];
                long[] compile = new long[n];
                long[] run = new long[n];
                for (int i = -warmup; i < n; i++) {
                    long t0 = System.nanoTime();
                    Execution e = checked(s.execute(request), l);
                    if (i >= 0) {
                        total[i] = (System.nanoTime() - t0) / 1_000_000;
                        compile[i] = e.compile().wallTime().toMillis();
                        run[i] = e.wallTime().toMillis();
                    }
                }
                System.out.printf(Locale.ROOT, "%-6s %14d %16d %16d%n", l.id(), p50(total), p50(compile), p50(run));
            }
        }
    }

    /** The two stages' own scripts run by Bash in a temp directory holding the source: no sandbox at all. */
    private static long bare(ExecutionRequest request) throws IOException, InterruptedException {
        Program p = request.program();
        LanguageProfile profile = LanguageProfile.of(p.language());
        Path dir = Files.createTempDirectory("codeagent-bench-compiled-");
        try {
            String mainFile = CompileStages.mainFile(p, profile);
            Files.writeString(dir.resolve(mainFile), p.source());
            Files.writeString(dir.resolve("compile.sh"), CompileStages.compileScript(p, profile, mainFile,
                    request.compileLimitsOr(ResourceLimits.compileDefaults())));
            Files.writeString(dir.resolve("run.sh"), CompileStages.runScript(p, profile, request.limits()));
            // as in the sandbox: every compile starts without Go's build cache
            deleteTree(Path.of("/tmp/codeagent-go"));
            long t0 = System.nanoTime();
            bash(dir, "compile.sh", "/dev/null");
            if (Toolchains.of(p.language()).orElseThrow().archived()) {
                // the compile stage sends the classes as one tar; the run stage unpacks it
                bash(dir, "tar-for-run.sh", null);
            }
            bash(dir, "run.sh", null);
            return (System.nanoTime() - t0) / 1_000_000;
        } finally {
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    private static void bash(Path dir, String script, String stdoutTo) throws IOException, InterruptedException {
        if (script.equals("tar-for-run.sh")) {
            Files.writeString(dir.resolve(script), "cd codeagent-build && tar -cf classes.tar --exclude=classes.tar .\n");
        }
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", script));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(false);
        pb.environment().put("HOME", dir.toString());
        // the toolchains the sandbox sees: Debian's, not a user's (rustup's rustc first on this JVM's PATH)
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.redirectOutput(stdoutTo == null ? ProcessBuilder.Redirect.PIPE : ProcessBuilder.Redirect.to(new java.io.File(stdoutTo)));
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process proc = pb.start();
        if (stdoutTo == null) {
            proc.getInputStream().readAllBytes();
        }
        int status = proc.waitFor();
        if (status != 0) {
            throw new IllegalStateException(script + " exited " + status + " in " + dir);
        }
    }

    /** A failing run must not be timed as a fast one. */
    private static Execution checked(Execution e, Language l) {
        if (!e.ok() || !e.stdout().text().equals("hello\n")) {
            throw new IllegalStateException(l.id() + " run failed: " + e.outcome() + " " + e.detail() + " " + e.stderr().text()
                    + (e.compile() == null ? "" : e.compile().stderr().text()));
        }
        return e;
    }

    private static long p50(long[] xs) {
        long[] s = xs.clone();
        java.util.Arrays.sort(s);
        return s[s.length / 2];
    }
}
