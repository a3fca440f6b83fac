package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
            "Its stdout and stderr pass through as it writes them, this command's standard input reaches it (as with "
                + "'python3 file.py'; --stdin none turns that off), and the exit status mirrors the program's."},
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

    @Option(names = "--stdin", paramLabel = "FILE|-|none",
            description = "The program's standard input: a file, - for this command's, or none (default: this command's, "
                    + "unless the program itself comes from it).")
    String stdinFile;

    @Option(names = "--json", description = "Print one JSON object: outcome, exitCode, signal, stdout, stderr, stdoutTruncated, "
            + "stderrTruncated, wallTimeMs, cpuTimeMs, peakMemoryBytes, sandbox, isolation, compile (a compiled "
            + "language's compile stage, else null).")
    boolean json;

    @Option(names = "--stream", description = "Pass the program's output on as it is written also when no terminal is"
            + " attached (a pipe, a log); on a terminal it always is.")
    boolean stream;

    @Option(names = "--queue", description = "Run it on a worker of the shared store (store.kind: postgres; 'codeagent worker')"
            + " instead of in this machine's sandbox, waiting for one to take it.")
    boolean queue;

    @Override
    public Integer call() {
        Map<String, String> overrides = new java.util.LinkedHashMap<>(limits.overrides());
        CodeAgentCli.queueFlag(queue, overrides);
        CodeAgentConfig config = cli.configForOneRun(overrides);
        // sandbox.kind: queue (what --queue sets): the composition's executor is the workers' queue
        boolean queued = CodeAgentCli.onTheWorkers(config);
        ExecutionRequest request = request(config);
        // bad input is refused above, before any sandbox is started; the result is shown before the
        // sandbox is closed, since cleaning up may take a moment the user need not wait for
        try (CodeAgent agent = cli.agent(config)) {
            long started = System.nanoTime();
            // live (a fresh sandbox, output as it is written) when someone watches or types, or when asked; otherwise
            // the warm sandbox runs it whole, twice as fast for short programs (cli-startup.sh: 42 against 82 ms)
            boolean watched = stream || cli.context().interactive() || cli.context().stdinTerminal();
            LiveExecution live = queued || !watched ? null : startLive(agent, request);
            if (live == null && stdinMode == StdinMode.PASS_THROUGH) {
                // run as a whole: its input is read now, whole (a terminal's only with --stdin -: else it would
                // wait for Ctrl-D before the program started)
                String input = stdinFile == null && cli.context().stdinTerminal() ? ""
                        : Inputs.read("-", cli.context(), "input", Inputs.MAX_INPUT_BYTES, null).text();
                request = new ExecutionRequest(request.program(), input, request.args(), request.limits());
            }
            if (live == null) {
                Execution execution;
                try {
                    execution = queued ? onAWorker(agent, request) : agent.executeCode().execute(request);
                } catch (ExecutionCancelledException e) {
                    return interrupted(started);
                }
                show(execution, request, false);
                IsolationWarning.print(spec.commandLine().getErr(), java.util.Collections.singletonList(execution.isolation()));
                return ExitStatus.of(execution);
            }
            Execution execution;
            try {
                execution = live.await();
            } catch (ExecutionCancelledException e) {
                live.cancel();
                return interrupted(started);
            }
            // Ctrl-C on a terminal reaches the sandboxed program too (one process group): it may end of SIGINT
            // just before this command hears of it
            if (Thread.currentThread().isInterrupted()
                    || cli.context().stdinTerminal() && Integer.valueOf(2).equals(execution.signal())
                    || cli.context().stdinTerminal() && endedAsCtrlCEnds(execution) && interruptFollows()) {
                return interrupted(started);
            }
            show(execution, request, true);
            IsolationWarning.print(spec.commandLine().getErr(), java.util.Collections.singletonList(execution.isolation()));
            return ExitStatus.of(execution);
        }
    }

    /**
     * Python ends of Ctrl-C with status 130 (its KeyboardInterrupt), not a signal, so the program's end can come
     * before this command's own interrupt does: seen as one run in six under load, the line then missing.
     */
    private static boolean endedAsCtrlCEnds(Execution execution) {
        return execution.signal() == null && Integer.valueOf(ExitStatus.INTERRUPTED).equals(execution.exitCode());
    }

    /**
     * Whether this command's interrupt arrives within a moment: Ctrl-C reached this process too and it is on its
     * way. A program that exits 130 of its own accord costs the wait, once, and is then shown as it ended.
     */
    private static boolean interruptFollows() {
        try {
            Thread.sleep(INTERRUPT_GRACE_MS);
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    private static final long INTERRUPT_GRACE_MS = 1000;

    /** Ctrl-C or SIGTERM: what the program wrote has been passed on already; one line says when it stopped. */
    private int interrupted(long started) {
        // the flag is spent: the program is stopped. Writing with it set would close the background process's
        // channel to the client (an interrupted channel write), and the line would never arrive
        Thread.interrupted();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        out.flush();
        if (cli.context().stdinTerminal()) {
            // past the terminal's "^C"
            err.println();
        }
        err.printf(java.util.Locale.ROOT, "codeagent: interrupted after %.1f s%n", (System.nanoTime() - started) / 1e9);
        err.flush();
        return ExitStatus.INTERRUPTED;
    }

    /**
     * The program started live: its output passed on as it comes (a program that ticks shows each tick, as it would
     * in a terminal) and this command's stdin pumped into it while it runs. Null when it cannot run live here — a
     * compiled language (its compile stage comes first), a tier without live runs (the process tier without its supervisor), input given up front — and
     * then it runs as a whole, its output shown at its end.
     */
    private LiveExecution startLive(CodeAgent agent, ExecutionRequest request) {
        if (LanguageProfile.of(request.program().language()).compiled()) {
            return null;
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        long cap = request.limits().maxOutputBytes();
        long[] passed = new long[3];
        LiveExecution.Listener listener = json ? (stream, text) -> { } : (stream, text) -> {
            // each chunk flushed as it comes, so that the two streams interleave as the program wrote them; no more
            // of a stream than its cap (limits.maxOutput), as a run shown whole is cut there
            PrintWriter w = stream == LiveExecution.Listener.STDOUT ? out : err;
            synchronized (passed) {
                String shown = upTo(text, cap - passed[stream]);
                passed[stream] += shown.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                if (shown.length() < text.length()) {
                    passed[stream] = cap;
                }
                if (shown.isEmpty()) {
                    return;
                }
                w.print(shown);
                w.flush();
            }
        };
        LiveExecution live;
        try {
            live = agent.executeCode().start(request, listener);
        } catch (UnsupportedOperationException e) {
            return null;
        } catch (dev.codeagent.application.execute.InvalidRequestException e) {
            // the policy's refusal and its outcome as a whole run reports them
            return null;
        }
        if (stdinMode == StdinMode.PASS_THROUGH) {
            Thread pump = new Thread(() -> pump(cli.context().stdin(), live), "codeagent-exec-stdin");
            pump.setDaemon(true);
            pump.start();
        } else {
            live.closeStdin();
        }
        return live;
    }

    /** The longest head of {@code text} of at most {@code bytes} bytes in UTF-8. */
    static String upTo(String text, long bytes) {
        if (bytes <= 0) {
            return "";
        }
        if (text.length() * 3L <= bytes) {
            return text;
        }
        long n = 0;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            int len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (n + len > bytes) {
                break;
            }
            n += len;
            i += Character.charCount(cp);
        }
        return text.substring(0, i);
    }

    /** This command's stdin into the program's, as it comes, then its end. */
    private static void pump(java.io.InputStream in, LiveExecution live) {
        java.io.Reader reader = new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8);
        char[] buf = new char[8192];
        try {
            int n;
            while ((n = reader.read(buf)) > 0) {
                live.write(new String(buf, 0, n));
            }
        } catch (java.io.IOException | RuntimeException e) {
            // the caller's input ended badly or the command was interrupted: the program gets end-of-file
        }
        try {
            live.closeStdin();
        } catch (RuntimeException ended) {
            // the program has ended meanwhile
        }
    }

    /**
     * Queued for the shared store's workers through the composition's queue sandbox; Ctrl-C withdraws it (the waiting
     * thread is interrupted, and a worker running it stops it).
     */
    private Execution onAWorker(CodeAgent agent, ExecutionRequest request) {
        WorkerCommand.requireExecutionQueue(agent, queue);
        return agent.executeCode().execute(request);
    }

    private void show(Execution execution, ExecutionRequest request, boolean streamed) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (json) {
            out.println(Json.write(Json.execution(execution)));
        } else {
            if (execution.compile() != null && !execution.compile().ok()) {
                err.print(execution.compile().stderr().text());
            }
            if (!streamed) {
                out.print(execution.stdout().text());
                out.flush();
                err.print(execution.stderr().text());
            }
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

    /** How the program gets its stdin: as {@link #request} decided. */
    private enum StdinMode { NONE, GIVEN, PASS_THROUGH }

    private StdinMode stdinMode = StdinMode.NONE;

    /**
     * The program's stdin given up front ({@code --stdin FILE}, or this command's whole stdin when the program cannot
     * be fed while it runs), or empty with {@link #stdinMode} saying whether this command's stdin is pumped in live.
     * Like {@code python3 file.py}: by default what is piped in reaches the program, and a terminal's input does when
     * the program reads it.
     */
    private String stdin(boolean programFromStdin) {
        if ("none".equals(stdinFile) || stdinFile == null && programFromStdin) {
            stdinMode = StdinMode.NONE;
            return "";
        }
        if (stdinFile != null && !stdinFile.equals("-")) {
            stdinMode = StdinMode.GIVEN;
            return Inputs.read(stdinFile, cli.context(), "input", Inputs.MAX_INPUT_BYTES, null).text();
        }
        stdinMode = StdinMode.PASS_THROUGH;
        return "";
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
        String stdin = stdin(programFromStdin);
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
