package dev.codeagent.jupyter;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.command.FieldError;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.command.TaskRequest;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.application.session.SessionRefusedException;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.solve.StopReason;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.JupyterIO;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.publish.PublishDisplayData;
import org.dflib.jjava.jupyter.messages.publish.PublishError;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteInput;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteResult;
import org.dflib.jjava.jupyter.messages.publish.PublishStream;
import org.dflib.jjava.jupyter.messages.reply.ErrorReply;
import org.dflib.jjava.jupyter.messages.reply.ExecuteReply;
import org.dflib.jjava.jupyter.messages.reply.HistoryReply;
import org.dflib.jjava.jupyter.messages.request.ExecuteRequest;
import org.dflib.jjava.jupyter.messages.request.HistoryRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code codeagent} Jupyter kernel: a notebook's cells run in a codeagent session (a real IPython kernel inside
 * the configured sandbox tier, state kept from cell to cell), and the kernel's own magics hand tasks to the agent
 * ({@code %%solve}, {@code %%tests}) or set where and how cells run ({@code %sandbox}, {@code %limits}, {@code %runs}).
 *
 * <p>The Jupyter wire protocol (five ZMQ sockets, signed frames, status and reply bookkeeping) is jjava-jupyter's;
 * this class decides what an execute request does. Interrupts arrive as messages on the control channel
 * ({@code interrupt_mode: message} in the kernelspec: a signal to this JVM would reach no sandboxed code), and a
 * notebook's Restart is Jupyter's own: a shutdown with restart, then a new kernel process with a new session.
 */
public final class CodeAgentKernel extends BaseKernel {

    private static final Logger log = LoggerFactory.getLogger(CodeAgentKernel.class);

    /**
     * A notebook is a person's working session, not a request: cells may run for minutes and the notebook may sit
     * idle over lunch. The sandbox's limits (memory, processes, disk, CPU budget) stay those of a session.
     */
    static final SessionLimits NOTEBOOK_LIMITS = SessionLimits.defaults()
            .withCellTimeout(Duration.ofMinutes(10))
            .withIdleTimeout(Duration.ofHours(12))
            .withMaxLifetime(Duration.ofHours(24))
            .withMaxCells(100_000);

    private static final String HELP = String.join("\n",
            "codeagent kernel: cells are Python, run in a sandboxed IPython session (state kept across cells).",
            "  %%solve [--attempts N] [--language L] [--expected-output TEXT] [--stdin TEXT] [--timeout 10s] [--memory 256m]",
            "      the cell's body is a task: the agent writes code, runs it, fixes it; the accepted code is defined here",
            "  %%tests    the cell's body holds tests for the next %%solve (Python asserts)",
            "  %sandbox [process|docker]    show or change the sandbox tier (a change starts a new session)",
            "  %limits [timeout=10m] [memory=512m]    show or change the per-cell time and the session's memory",
            "  %runs [N]  the last N runs of the agent (default 10)");

    private final Function<Map<String, String>, CodeAgentConfig> configs;
    private final Function<CodeAgentConfig, CodeAgent> agents;
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "codeagent-cell");
        t.setDaemon(true);
        return t;
    });
    private SessionLimits limits;
    private CodeAgent agent;
    private Future<OpenSession> session;
    private String pendingTests;
    private volatile Future<?> solving;
    /**
     * Execute requests the client sent before this instant (its clock) are aborted: they were queued behind a cell that
     * failed with stop_on_error, as "Run All" queues them; a request sent after the client saw the error runs.
     */
    private volatile java.time.Instant abortBefore;

    /**
     * @param configs the effective config for a set of overrides (dotted keys) on top of the kernel's own, e.g.
     *     {@code sandbox.kind=docker} after {@code %sandbox docker}
     */
    public CodeAgentKernel(Function<Map<String, String>, CodeAgentConfig> configs) {
        this(configs, CodeAgent::create);
    }

    /**
     * @param configs as above
     * @param agents the composition root's: an agent composed for a config (the entry point passes its own, so the
     *     kernel wires nothing itself)
     */
    public CodeAgentKernel(Function<Map<String, String>, CodeAgentConfig> configs, Function<CodeAgentConfig, CodeAgent> agents) {
        super("codeagent", version(), languageInfo(), List.of(), null, new JupyterIO(java.nio.charset.StandardCharsets.UTF_8),
                new CommManager(), new Renderer(), null, null, false, new StringStyler.Builder().build());
        this.configs = Objects.requireNonNull(configs, "configs");
        this.agents = Objects.requireNonNull(agents, "agents");
        // a configured ceiling below the notebook's defaults lowers them
        this.limits = LimitOverrides.within(NOTEBOOK_LIMITS, JupyterConfig.from(configs.apply(Map.of())).policy());
    }

    private static String version() {
        String v = CodeAgentKernel.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static LanguageInfo languageInfo() {
        return new LanguageInfo.Builder("python").version("3").mimetype("text/x-python").fileExtension(".py")
                .pygments("ipython3").codemirror(Map.of("name", "ipython", "version", 3)).exporter("python").build();
    }

    @Override
    public String getBanner() {
        return "codeagent " + getVersion() + ": Python cells in a sandboxed session; %%solve hands a task to the agent."
                + " Type %help for the magics.";
    }

    /** Starts the agent and the first session in the background, so the first cell does not wait for both. */
    public void start() {
        synchronized (this) {
            openSession();
        }
    }

    // ---- the execute request

    @Override
    protected void handleExecuteRequest(ShellReplyEnvironment env, Message<ExecuteRequest> message) {
        env.setBusyDeferIdle();
        try {
            execute(env, message);
        } catch (RuntimeException | LinkageError e) {
            // whatever went wrong, the request gets its reply: a handler that throws leaves the notebook waiting forever
            log.warn("execute request failed in the kernel", e);
            Failure failure = new Failure("CodeagentError", oneLine(e));
            replyError(env, executionCount.get(), failure.name(), failure.value(), failure.traceback());
        }
    }

    private static void replyError(ShellReplyEnvironment env, int count, String name, String value, List<String> traceback) {
        ErrorReply reply = new ErrorReply(name, value, traceback);
        reply.setExecutionCount(count);
        env.defer().replyError(ExecuteReply.MESSAGE_TYPE.error(), reply);
    }

    /** When the client sent a message, by its clock; null when it does not say in a form we read. */
    private static java.time.Instant sentAt(Message<?> message) {
        try {
            String date = message.getHeader().getTimestamp() == null ? null : message.getHeader().getTimestamp().getDateString();
            return date == null ? null : java.time.OffsetDateTime.parse(date).toInstant();
        } catch (RuntimeException unreadable) {
            return null;
        }
    }

    private void execute(ShellReplyEnvironment env, Message<ExecuteRequest> message) {
        ExecuteRequest request = message.getContent();
        long started = System.nanoTime();
        java.time.Instant sent = sentAt(message);
        java.time.Instant abortBefore = this.abortBefore;
        if (sent != null && abortBefore != null && sent.isBefore(abortBefore)) {
            // queued behind a cell that failed with stop_on_error ("Run All"): not run, as ipykernel aborts them
            replyError(env, executionCount.get(), "ExecutionAborted", "not run: an earlier cell failed", List.of());
            return;
        }
        // a silent request (a frontend's own query) is run but neither counted nor shown
        boolean silent = request.isSilent();
        int count = silent ? executionCount.get() : executionCount.getAndIncrement();
        if (!silent) {
            env.publish(new PublishExecuteInput(request.getCode(), count));
        }
        Notebook out = new Notebook(env, count, silent);
        Failure failure;
        try {
            failure = run(request.getCode(), out);
        } catch (CellCommand.MagicException e) {
            failure = new Failure("UsageError", e.getMessage());
        } catch (RuntimeException | LinkageError e) {
            // the cell's own failure gets what any failed cell gets (an error output, Run All stopping); failures in the
            // request's bookkeeping around it are answered by handleExecuteRequest
            log.warn("cell failed in the kernel", e);
            failure = new Failure("CodeagentError", oneLine(e));
        }
        if (failure == null) {
            env.defer().reply(new ExecuteReply(count, Collections.emptyMap()));
            return;
        }
        List<String> traceback = failure.traceback();
        // a timed-out cell has shown the KeyboardInterrupt the timeout sent into it; on its own that reads as if the
        // user had pressed stop: the CellTimeout with the limit that fired is shown after it
        if ((!out.errorShown || failure.name().equals("CellTimeout")) && !silent) {
            env.publish(new PublishError(failure.name(), failure.value(), traceback));
        }
        if (request.shouldStopOnError() && !silent && sent != null) {
            // sent before the client could have seen this error: its send time plus how long the cell took here. Only
            // the client's clock is compared with the client's clock, so skew between the machines does not matter
            this.abortBefore = sent.plusNanos(System.nanoTime() - started + 1_000_000);
        }
        replyError(env, count, failure.name(), failure.value(), traceback);
    }

    /** The count the next counted cell gets; an execute_reply refused before it ran carries it too. */
    int executionCount() {
        return executionCount.get();
    }

    /** No history is kept across kernels, but a console waits for an answer: an empty one (the library's is none). */
    @Override
    protected void handleHistoryRequest(ShellReplyEnvironment env, Message<HistoryRequest> message) {
        env.setBusyDeferIdle();
        env.reply(new HistoryReply(List.of()));
    }

    /** Why a cell failed, for the notebook's error output and the reply; traceback empty: the one line. */
    record Failure(String name, String value, List<String> shownTraceback) {
        Failure(String name, String value) {
            this(name, value, List.of());
        }

        List<String> traceback() {
            return shownTraceback.isEmpty() ? List.of(name + ": " + value) : shownTraceback;
        }
    }

    /** @return null when the cell went well */
    private Failure run(String code, Notebook out) {
        CellCommand command = code.strip().equals("%help") || code.strip().equals("%codeagent")
                ? new CellCommand.LineMagics(List.of(new CellCommand.Line("help", List.of())))
                : CellCommand.parse(code);
        if (command instanceof CellCommand.Code c) {
            return runCode(c.source(), out);
        }
        if (command instanceof CellCommand.Tests t) {
            pendingTests = t.tests();
            int lines = t.tests().strip().split("\\R").length;
            out.stdout("codeagent: tests kept for the next %%solve (" + lines + (lines == 1 ? " line)\n" : " lines)\n"));
            return null;
        }
        if (command instanceof CellCommand.Solve s) {
            return solve(s, out);
        }
        for (CellCommand.Line line : ((CellCommand.LineMagics) command).lines()) {
            lineMagic(line, out);
        }
        return null;
    }

    private Failure runCode(String source, Notebook out) {
        OpenSession open = session();
        Session s = open.session();
        CellResult r = open.use(x -> x.execute(new Cell(source), out::show));
        switch (r.status()) {
            case OK:
                return null;
            case OUTPUT_TRUNCATED:
                out.stderr("codeagent: " + r.message() + "\n");
                return null;
            case ERROR:
                CellOutput.Error e = r.error().orElseThrow();
                return new Failure(e.name(), e.value(), e.traceback());
            case INTERRUPTED:
                return new Failure("KeyboardInterrupt", r.message().isEmpty() ? "the cell was interrupted" : r.message());
            case TIMEOUT:
                return new Failure("CellTimeout", r.message() + (r.stateLost() ? " (the kernel was restarted: earlier"
                        + " definitions are gone)" : ""));
            case KERNEL_DIED:
            default:
                String why = r.message();
                recover(s, out);
                return new Failure("KernelDied", why + " (state lost: earlier definitions are gone)");
        }
    }

    /** After a dead kernel: restarts it, or opens a new session when the old one has ended. */
    private void recover(Session s, Notebook out) {
        try {
            if (s.endReason().isEmpty()) {
                s.restart();
                out.stderr("codeagent: the kernel inside the sandbox was restarted\n");
                return;
            }
        } catch (RuntimeException e) {
            log.debug("restart after a dead kernel failed", e);
        }
        synchronized (this) {
            closeSession();
            openSession();
        }
        out.stderr("codeagent: the session had ended (" + s.endReason().orElse("its sandbox failed")
                + "); a new one is starting\n");
    }

    // ---- %%solve

    private Failure solve(CellCommand.Solve s, Notebook out) {
        Map<String, String> o = s.options();
        Language language = o.containsKey("language") ? Language.fromId(o.get("language")).orElseThrow(() ->
                new CellCommand.MagicException("%%solve: unknown language '" + o.get("language") + "'; known: "
                        + Language.knownIds())) : Language.PYTHON;
        Integer attempts = null;
        if (o.containsKey("attempts")) {
            try {
                attempts = Integer.parseInt(o.get("attempts"));
            } catch (NumberFormatException e) {
                throw new CellCommand.MagicException("%%solve: --attempts takes a whole number, not '" + o.get("attempts") + "'");
            }
        }
        LimitOverrides taskLimits = LimitOverrides.NONE;
        if (o.containsKey("timeout")) {
            taskLimits = taskLimits.withTimeout(duration("--timeout", o.get("timeout")));
        }
        if (o.containsKey("memory")) {
            taskLimits = taskLimits.withMemoryBytes(bytes("--memory", o.get("memory")));
        }
        String tests = pendingTests;
        CodeAgent a = agent();
        CodeAgentConfig config = a.config();
        FieldErrors errors = new FieldErrors();
        TaskRequest request = new TaskRequest(s.task(), language.id(), tests, o.get("expected-output"), o.get("stdin"),
                taskLimits, attempts);
        // capped like %limits: a notebook's task may not ask for more than jupyter.* allows
        Task task = request.toTask(new TaskRequest.Defaults(config.limits().toResourceLimits(), config.solve().maxAttempts()),
                EnumSet.allOf(Language.class), JupyterConfig.from(config).policy(), errors);
        if (task == null) {
            throw new CellCommand.MagicException("%%solve: " + errors.firstLine(e -> SOLVE_FLAGS.getOrDefault(e.field(), e.field())
                    + " " + e.message()));
        }
        pendingTests = null;
        boolean inSession = language == Language.PYTHON;
        OpenSession shared = inSession ? session() : null;
        SolveTask solveTask = a.solveTask();
        String runId = SolveTask.newRunId();
        out.stdout("codeagent: run " + runId + ", up to " + task.maxAttempts() + " attempt" + (task.maxAttempts() == 1 ? "" : "s")
                + " in the " + a.sandbox().tier() + " sandbox" + (tests != null ? ", judged by the tests of %%tests" : "")
                + "\n");
        // the kernel runs as the notebook's user: its runs are theirs, as 'codeagent solve' runs are
        String owner = dev.codeagent.application.run.Caller.localUser().owner();
        Future<Run> work = worker.submit(() -> inSession
                ? shared.use(kernelSession -> solveTask.solveInSession(runId, task, owner, event -> progress(event, task, out),
                        () -> StopReason.CANCELLED, kernelSession))
                : solveTask.solve(runId, task, owner, event -> progress(event, task, out), () -> StopReason.CANCELLED));
        solving = work;
        Run run;
        try {
            run = work.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            work.cancel(true);
            return new Failure("KeyboardInterrupt", "the kernel is stopping");
        } catch (java.util.concurrent.CancellationException e) {
            return new Failure("KeyboardInterrupt", "run " + runId + " was cancelled");
        } catch (ExecutionException e) {
            log.warn("run {} failed in the kernel", runId, e.getCause());
            return new Failure("CodeagentError", "run " + runId + ": " + oneLine(e.getCause()));
        } finally {
            solving = null;
        }
        Attempt last = run.lastAttempt();
        if (last != null && !last.code().isEmpty()) {
            // HTML we escape, not Markdown: the model's code could close a fence and write raw HTML
            String html = "<pre><code class=\"language-" + language.id() + "\">"
                    + OutputSanitizer.escape(last.code().stripTrailing()) + "</code></pre>";
            out.display(new MimeBundle(Map.of("text/html", html, MimeBundle.TEXT_PLAIN, last.code())));
        }
        String took = run.endedAt() == null ? "" : " in " + Units.formatDuration(Duration.between(run.startedAt(), run.endedAt()));
        int n = run.attempts().size();
        if (run.status() == RunStatus.SOLVED) {
            out.stdout("codeagent: solved on attempt " + n + "/" + task.maxAttempts() + took + " (run " + run.id() + ")"
                    + (inSession ? "; the code is defined in this session" : "; not defined here (the session runs Python)")
                    + "\n");
            return null;
        }
        if (run.status() == RunStatus.FAILED) {
            return new Failure("NotSolved", "not solved after " + n + "/" + task.maxAttempts() + " attempts" + took
                    + (last == null ? "" : "; last verdict " + last.verdict().headline()) + " (run " + run.id() + ")");
        }
        if (run.status() == RunStatus.CANCELLED) {
            return new Failure("KeyboardInterrupt", "run " + run.id() + " was cancelled after " + n + " attempt" + (n == 1 ? "" : "s"));
        }
        return new Failure("RunError", "run " + run.id() + " ended " + run.status() + (run.reason() == null ? "" : ": "
                + oneLine(run.reason())));
    }

    private static void progress(RunEvent event, Task task, Notebook out) {
        if (event instanceof RunEvent.Judged j) {
            Attempt a = j.attempt();
            out.stdout("attempt " + a.number() + "/" + task.maxAttempts() + ": " + a.verdict().headline() + "\n");
        }
    }

    /** A task's limit fields as %%solve's options name them, for its errors. */
    private static final Map<String, String> SOLVE_FLAGS = Map.of("limits.timeoutMs", "--timeout", "limits.cpuTimeMs",
            "--timeout", "limits.memoryBytes", "--memory");

    // ---- line magics

    private void lineMagic(CellCommand.Line line, Notebook out) {
        List<String> args = line.args();
        switch (line.name()) {
            case "help":
                out.stdout(HELP + "\n");
                return;
            case "sandbox":
                sandboxMagic(args, out);
                return;
            case "limits":
                limitsMagic(args, out);
                return;
            case "runs":
                runsMagic(args, out);
                return;
            default:
                throw new CellCommand.MagicException("unknown magic %" + line.name());
        }
    }

    private void sandboxMagic(List<String> args, Notebook out) {
        if (args.isEmpty()) {
            CodeAgent a = agent();
            out.stdout("codeagent: sandbox " + a.config().sandbox().kind() + " (" + a.sandbox().tier() + ")\n");
            return;
        }
        if (args.size() > 1 || !List.of("process", "docker").contains(args.get(0))) {
            throw new CellCommand.MagicException("%sandbox takes one of: process, docker (got '" + String.join(" ", args) + "')");
        }
        String kind = args.get(0);
        Map<String, String> next = new LinkedHashMap<>(overrides);
        next.put("sandbox.kind", kind);
        configs.apply(next); // a bad config fails here, before the working session is given up
        synchronized (this) {
            overrides.clear();
            overrides.putAll(next);
            closeAgent();
            openSession();
        }
        out.stdout("codeagent: sandbox " + kind + "; a new session is starting (earlier definitions are gone)\n");
    }

    private void limitsMagic(List<String> args, Notebook out) {
        JupyterConfig ceilings = JupyterConfig.from(configs.apply(overrides));
        if (args.isEmpty()) {
            out.stdout("codeagent: timeout=" + Units.formatDuration(limits.cellTimeout()) + " per cell, memory="
                    + Units.formatBytes(limits.memoryBytes()) + " for the session (at most "
                    + Units.formatDuration(ceilings.maxTimeout()) + " and " + Units.formatBytes(ceilings.maxMemory().bytes())
                    + ": jupyter.maxTimeout, jupyter.maxMemory)\n");
            return;
        }
        LimitOverrides asked = LimitOverrides.NONE;
        Map<String, String> typed = new LinkedHashMap<>(); // the field's wire name -> the word that asked for it
        for (String a : args) {
            int eq = a.indexOf('=');
            String key = eq < 0 ? a : a.substring(0, eq).toLowerCase(Locale.ROOT);
            if (eq < 0 || eq == a.length() - 1) {
                throw new CellCommand.MagicException("%limits takes key=value words: timeout=10m memory=512m (got '" + a + "')");
            }
            String value = a.substring(eq + 1);
            switch (key) {
                case "timeout":
                    asked = asked.withTimeout(duration("timeout", value));
                    typed.put("timeoutMs", a);
                    break;
                case "memory":
                    asked = asked.withMemoryBytes(bytes("memory", value));
                    typed.put("memoryBytes", a);
                    break;
                default:
                    throw new CellCommand.MagicException("%limits: unknown limit '" + key + "'; known: timeout, memory");
            }
        }
        // the ceilings are the config's, applied by the application as on every door: a notebook (anyone's content,
        // run with "Run All") must not lift the sandbox's memory above what the person running it configured
        FieldErrors errors = new FieldErrors();
        SessionLimits next = asked.applyTo(limits, ceilings.policy(), "limits", errors);
        if (next == null) {
            FieldError e = errors.list().get(0);
            String field = e.field().substring(e.field().indexOf('.') + 1);
            throw new CellCommand.MagicException("%limits " + typed.getOrDefault(field, field) + ": " + e.message());
        }
        boolean memoryChanged = next.memoryBytes() != limits.memoryBytes();
        boolean timeoutChanged = !next.cellTimeout().equals(limits.cellTimeout());
        if (!memoryChanged && !timeoutChanged) {
            out.stdout("codeagent: the limits are already so\n");
            return;
        }
        synchronized (this) {
            limits = next;
            closeSession();
            openSession();
        }
        out.stdout("codeagent: timeout=" + Units.formatDuration(next.cellTimeout()) + " per cell, memory="
                + Units.formatBytes(next.memoryBytes()) + "; a new session is starting (earlier definitions are gone)\n");
    }

    private void runsMagic(List<String> args, Notebook out) {
        int n = 10;
        if (args.size() > 1 || (args.size() == 1 && !args.get(0).matches("\\d{1,4}"))) {
            throw new CellCommand.MagicException("%runs takes at most one number, how many runs to list (got '"
                    + String.join(" ", args) + "')");
        }
        if (args.size() == 1) {
            n = Math.max(1, Integer.parseInt(args.get(0)));
        }
        List<Run> runs = agent().runLog().recent(n, null);
        if (runs.isEmpty()) {
            out.stdout("codeagent: no runs yet\n");
            return;
        }
        StringBuilder text = new StringBuilder();
        StringBuilder html = new StringBuilder("<table><thead><tr><th>run</th><th>status</th><th>attempts</th><th>task</th>"
                + "</tr></thead><tbody>");
        for (Run r : runs) {
            String prompt = r.task().prompt().strip().replaceAll("\\s+", " ");
            if (prompt.length() > 60) {
                prompt = prompt.substring(0, 60) + "…";
            }
            text.append(String.format(Locale.ROOT, "%-16s  %-9s  %d/%d  %s%n", r.id(), r.status(), r.attempts().size(),
                    r.task().maxAttempts(), prompt));
            // a run's prompt may come from anyone who can queue runs in this store: escaped
            html.append("<tr><td>").append(r.id()).append("</td><td>").append(r.status()).append("</td><td>")
                    .append(r.attempts().size()).append('/').append(r.task().maxAttempts()).append("</td><td>")
                    .append(OutputSanitizer.escape(prompt)).append("</td></tr>");
        }
        html.append("</tbody></table>");
        out.display(new MimeBundle(Map.of(MimeBundle.TEXT_PLAIN, text.toString(), "text/html", html.toString())));
    }

    private static Duration duration(String what, String text) {
        try {
            return Units.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new CellCommand.MagicException(what + ": '" + text + "' is not a duration (e.g. 10s, 5m)");
        }
    }

    private static long bytes(String what, String text) {
        try {
            return Units.parseBytes(text);
        } catch (IllegalArgumentException e) {
            throw new CellCommand.MagicException(what + ": '" + text + "' is not a size (e.g. 256m, 1g)");
        }
    }

    // ---- the agent and the session

    /** The kernel's one owner in its agent's session registry: the notebook's. */
    static final String OWNER = "kernel";

    private synchronized CodeAgent agent() {
        if (agent == null) {
            agent = agents.apply(configs.apply(overrides));
        }
        return agent;
    }

    /** Starts opening a session in the background; the caller holds this. */
    private void openSession() {
        SessionLimits l = limits;
        session = worker.submit(() -> {
            CodeAgent a = agent();
            try {
                return a.openSessions().open(OWNER, l);
            } catch (SessionRefusedException e) {
                throw new dev.codeagent.domain.execution.SandboxUnavailableException(e.getMessage());
            }
        });
    }

    private OpenSession session() {
        Future<OpenSession> f;
        synchronized (this) {
            if (session == null) {
                openSession();
            }
            f = session;
        }
        try {
            OpenSession s = f.get();
            if (s.endReason().isPresent()) {
                String why = s.endReason().get();
                synchronized (this) {
                    if (session == f) {
                        closeSession();
                        openSession();
                    }
                }
                throw new SessionGone("the session had ended (" + why + "); a new one is starting: run the cell again");
            }
            return s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SessionGone("interrupted while the session was starting");
        } catch (ExecutionException e) {
            synchronized (this) {
                if (session == f) {
                    session = null; // the next cell tries again (e.g. after %sandbox)
                }
            }
            throw new SessionGone("no session: " + oneLine(e.getCause()));
        }
    }

    /** The session could not be had; one line for the notebook. */
    static final class SessionGone extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        SessionGone(String message) {
            super(message);
        }
    }

    /** The caller holds this. */
    private void closeSession() {
        Future<OpenSession> f = session;
        session = null;
        if (f == null) {
            return;
        }
        // closed when it has opened, on the worker (in order after the open), never blocking the shell thread
        worker.submit(() -> {
            try {
                f.get().close();
            } catch (ExecutionException e) {
                log.debug("the session never opened", e.getCause());
            } catch (RuntimeException e) {
                log.debug("closing the session failed", e);
            }
            return null;
        });
    }

    /** The caller holds this. */
    private void closeAgent() {
        closeSession();
        CodeAgent a = agent;
        agent = null;
        if (a != null) {
            worker.submit(() -> {
                a.close();
                return null;
            });
        }
    }

    // ---- interrupt and shutdown

    @Override
    public void interrupt() {
        Future<?> run = solving;
        if (run != null) {
            run.cancel(true);
        }
        Future<OpenSession> f = session;
        if (f != null && f.isDone() && !f.isCancelled()) {
            try {
                f.get().session().interrupt();
            } catch (ExecutionException | InterruptedException | RuntimeException e) {
                log.debug("nothing to interrupt", e);
            }
        }
    }

    @Override
    public void onShutdown(boolean restart) {
        Future<?> run = solving;
        if (run != null) {
            run.cancel(true);
        }
        CodeAgent a;
        Future<OpenSession> f;
        synchronized (this) {
            a = agent;
            f = session;
            agent = null;
            session = null;
        }
        if (f != null) {
            f.cancel(false);
            if (f.isDone() && !f.isCancelled()) {
                try {
                    f.get().close();
                } catch (ExecutionException | InterruptedException | RuntimeException e) {
                    log.debug("closing the session at shutdown failed", e);
                }
            }
        }
        if (a != null) {
            a.close();
        }
        worker.shutdownNow();
    }

    // ---- what the kernel does not evaluate itself

    @Override
    public Object evalRaw(String code) {
        throw new UnsupportedOperationException("the codeagent kernel runs cells in its session, not in the JVM");
    }

    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        return null;
    }

    /**
     * Completes the kernel's own magics at the start of a line; code completion would need the sandboxed kernel.
     * {@code cursor} counts code points, as the protocol does since 5.2 (the wire has checked it is within the code).
     */
    @Override
    public ReplacementOptions complete(String code, int cursor) {
        int at = code.offsetByCodePoints(0, Math.max(0, Math.min(cursor, code.codePointCount(0, code.length()))));
        int lineStart = at == 0 ? 0 : code.lastIndexOf('\n', at - 1) + 1;
        String typed = code.substring(lineStart, at);
        if (!typed.startsWith("%")) {
            return null;
        }
        List<String> matches = new ArrayList<>();
        for (String m : List.of("%%solve", "%%tests", "%sandbox", "%limits", "%runs", "%help")) {
            if (m.startsWith(typed)) {
                matches.add(m);
            }
        }
        return new ReplacementOptions(matches, code.codePointCount(0, lineStart), code.codePointCount(0, at));
    }

    @Override
    public String isComplete(String code) {
        String c = Completeness.of(code);
        return c.equals(Completeness.COMPLETE) ? IS_COMPLETE_YES : c;
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage();
        return oneLine(m == null || m.isBlank() ? e.getClass().getSimpleName() : m);
    }

    private static String oneLine(String text) {
        return text.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** Where one cell's outputs go: the notebook, through the iopub channel, as they come. */
    private static final class Notebook {
        private final ShellReplyEnvironment env;
        private final int count;
        private final boolean silent;
        private boolean errorShown;

        Notebook(ShellReplyEnvironment env, int count, boolean silent) {
            this.env = env;
            this.count = count;
            this.silent = silent;
        }

        private <T extends org.dflib.jjava.jupyter.messages.ContentType<T>> void publish(T content) {
            if (!silent) {
                env.publish(content);
            }
        }

        void stdout(String text) {
            publish(new PublishStream(PublishStream.StreamType.OUT, text));
        }

        void stderr(String text) {
            publish(new PublishStream(PublishStream.StreamType.ERR, text));
        }

        void display(MimeBundle bundle) {
            publish(new PublishDisplayData(displayData(OutputSanitizer.bundle(bundle))));
        }

        void show(CellOutput output) {
            if (output instanceof CellOutput.Stream s) {
                if ("stdout".equals(s.name())) {
                    stdout(s.text());
                } else {
                    stderr(s.text());
                }
            } else if (output instanceof CellOutput.DisplayData d) {
                display(d.data());
            } else if (output instanceof CellOutput.ExecuteResult r) {
                publish(new PublishExecuteResult(count, displayData(OutputSanitizer.bundle(r.data()))));
            } else if (output instanceof CellOutput.Error e) {
                publish(new PublishError(e.name(), e.value(), e.traceback()));
                errorShown = true;
            }
        }

        private static DisplayData displayData(MimeBundle bundle) {
            DisplayData d = new DisplayData();
            for (Map.Entry<String, String> e : bundle.data().entrySet()) {
                String type = e.getKey();
                // JSON representations travel as JSON, not as a string holding JSON
                if (type.equals("application/json") || type.endsWith("+json")) {
                    try {
                        d.putData(type, com.google.gson.JsonParser.parseString(e.getValue()));
                        continue;
                    } catch (RuntimeException notJson) {
                        // kept as text below
                    }
                }
                d.putData(type, e.getValue());
            }
            return d;
        }
    }
}
