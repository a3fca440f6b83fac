package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code codeagent exec [FILE|-]}: runs one program in the sandbox and ends as the program did. */
@Command(name = "exec",
        description = {"Run a program in the sandbox.",
            "Its stdout and stderr pass through as captured and the exit status mirrors the program's."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {
            "  N      the program exited with status N (or, for a compiled language, the",
            "         compiler did: the compiler's messages then come first on stderr)",
            "  128+N  signal N killed the program (no limit involved)",
            "  124    time limit (wall clock or CPU)",
            "  125    the sandbox failed or is unavailable",
            "  126    refused by the code policy",
            "  137    memory limit",
            "  153    output limit: stdout/stderr past its cap, or a file too large",
            "  130    interrupted (Ctrl-C)",
            "  2      bad usage or input",
            "When a limit, the policy or the sandbox ended the run, one line on stderr",
            "('codeagent: time limit exceeded …') says so, after the program's output.",
            "With --json the statuses are the same and stdout holds only the JSON.",
            "",
            "Examples:",
            "  codeagent exec hello.py",
            "  codeagent exec --json main.c",
            "  echo 'console.log(6 * 7)' | codeagent exec --language js -",
            "  codeagent exec --timeout 2s --memory 128m --stdin input.txt solve.py",
            "  codeagent exec --json --sandbox docker script.sh -- arg1 arg2"})
final class ExecCommand implements Callable<Integer> {

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE|-",
            description = "The program's source file; - or nothing reads it from standard input.")
    String file;

    @Parameters(index = "1..*", paramLabel = "ARG", description = "Arguments for the program (put -- before them if they start with -).")
    List<String> args = new ArrayList<>();

    @Option(names = {"-l", "--language"}, paramLabel = "LANG", converter = Converters.LanguageConverter.class,
            description = "python, javascript, bash, c, cpp, java, go or rust (default: from the file's extension, else "
                    + "python).")
    Language language;

    @Mixin
    LimitOptions limits;

    @Option(names = "--stdin", paramLabel = "FILE|-", description = "The program's standard input: a file, or - for this command's (default: none).")
    String stdinFile;

    @Option(names = "--json", description = "Print one JSON object: outcome, exitCode, signal, stdout, stderr, stdoutTruncated, "
            + "stderrTruncated, wallTimeMs, cpuTimeMs, peakMemoryBytes, sandbox, isolation, compile (a compiled "
            + "language's compile stage, else null).")
    boolean json;

    @Option(names = "--queue", description = "Run it on a worker of the shared store (store.kind: postgres; 'codeagent worker')"
            + " instead of in this machine's sandbox, waiting for one to take it.")
    boolean queue;

    @Override
    public Integer call() {
        CodeAgentConfig config = cli.configForOneRun(limits.overrides());
        ExecutionRequest request = request(config);
        // bad input is refused above, before any sandbox is started; the result is shown before the
        // sandbox is closed, since cleaning up may take a moment the user need not wait for
        try (CodeAgent agent = cli.agent(config)) {
            Execution execution = queue ? onAWorker(agent, request) : agent.executeCode().execute(request);
            show(execution, request);
            return ExitStatus.of(execution);
        }
    }

    /** Queued for the shared store's workers; Ctrl-C withdraws it (a worker running it stops it). */
    private Execution onAWorker(CodeAgent agent, ExecutionRequest request) {
        dev.codeagent.application.execute.ExecuteCode queued = WorkerCommand.onTheWorkers(agent, 1);
        try {
            return queued.execute(request);
        } finally {
            queued.sandbox().close();
        }
    }

    private void show(Execution execution, ExecutionRequest request) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (json) {
            out.println(Json.write(Json.execution(execution)));
        } else {
            if (execution.compile() != null && !execution.compile().ok()) {
                err.print(execution.compile().stderr().text());
            }
            out.print(execution.stdout().text());
            out.flush();
            err.print(execution.stderr().text());
            String note = note(execution, request.limits());
            if (note != null) {
                if (!execution.stderr().text().isEmpty() && !execution.stderr().text().endsWith("\n")) {
                    err.println();
                }
                err.println("codeagent: " + note);
            }
        }
        out.flush();
        err.flush();
    }

    private ExecutionRequest request(CodeAgentConfig config) {
        boolean programFromStdin = file == null || file.equals("-");
        if (programFromStdin && "-".equals(stdinFile)) {
            throw new UsageException("the program and its input cannot both come from standard input; give the program as a FILE");
        }
        long cap = config.sandbox().maxSourceBytes().bytes();
        Inputs.Text source = Inputs.read(file, cli.context(), "program", cap, "sandbox.maxSourceBytes");
        Language lang = language != null ? language
                : programFromStdin ? Language.PYTHON
                : Language.fromFileName(file).orElse(Language.PYTHON);
        Program program;
        try {
            program = new Program(lang, source.text());
        } catch (IllegalArgumentException e) {
            throw new UsageException(source.name() + ": " + e.getMessage());
        }
        String stdin = stdinFile == null ? ""
                : Inputs.read(stdinFile, cli.context(), "input", Inputs.MAX_INPUT_BYTES, null).text();
        ResourceLimits resourceLimits = LimitOptions.resolve(config);
        try {
            return new ExecutionRequest(program, stdin, args, resourceLimits);
        } catch (IllegalArgumentException e) {
            throw new UsageException("invalid program arguments: " + e.getMessage());
        }
    }

    /** The line that says what stopped the program, when something other than the program did. */
    static String note(Execution e, ResourceLimits limits) {
        String detail = e.detail() == null || e.detail().isBlank() ? "" : ": " + Failures.oneLine(e.detail());
        switch (e.outcome()) {
            case TIME_LIMIT:
                return "time limit exceeded (" + Units.formatDuration(limits.wallTime()) + " wall, "
                        + Units.formatDuration(limits.cpuTime()) + " CPU)" + detail;
            case MEMORY_LIMIT:
                return "memory limit exceeded (" + Units.formatBytes(limits.memoryBytes()) + ")" + detail;
            case OUTPUT_LIMIT:
                return "output limit exceeded (" + Units.formatBytes(limits.maxOutputBytes()) + " per stream, "
                        + Units.formatBytes(limits.maxFileBytes()) + " per file); output truncated" + detail;
            case COMPILATION_ERROR:
                return e.detail() == null ? "compilation failed" : Failures.oneLine(e.detail());
            case POLICY_VIOLATION:
                return "refused by the code policy" + detail;
            case SANDBOX_ERROR:
                return "the sandbox failed" + detail;
            case RUNTIME_ERROR:
                // a signal is never the program's own words: a segfault would otherwise end in silence and a 139
                if (e.signal() != null) {
                    // the sandbox's own "killed by signal 11" says less than the name
                    return "killed by " + Signals.describe(e.signal()) + (detail.startsWith(": killed by signal") ? "" : detail);
                }
                return null;
            default:
                return null;
        }
    }
}
