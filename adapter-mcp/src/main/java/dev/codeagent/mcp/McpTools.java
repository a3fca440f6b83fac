package dev.codeagent.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.solving.RunLog;
import java.util.function.Supplier;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.Languages;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.command.TaskRequest;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.application.session.SessionRefusedException;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.solve.StopReason;
import dev.codeagent.application.view.AttemptView;
import dev.codeagent.application.view.ExecutionView;
import dev.codeagent.application.view.RunView;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.domain.session.SessionFileException;
import dev.codeagent.domain.session.SessionFiles;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import io.modelcontextprotocol.server.McpServerFeatures.SyncResourceTemplateSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.Content;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools: each maps a call's arguments to an application request, asks the application, and renders what it gave
 * as MCP content. The program's own failures (an exception, a timeout, a failed compile) are results with
 * {@code isError: true} and a first line that says why, never protocol errors: the model reads them and tries again.
 */
final class McpTools implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(McpTools.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The run owner and session owner of this door's calls: runs it started are the runs it may read. */
    static final String OWNER = "mcp";
    static final String RUN_URI = "codeagent://runs/";

    private final Parts agent;
    private final McpConfig mcp;
    private final InputPolicy policy;
    private final ResourceLimits defaults;
    private final Calls calls;
    private final Map<String, OpenSession> kernels = new ConcurrentHashMap<>();

    /** Where the transport context keeps who called ({@link Caller}), for a transport that tells callers apart. */
    static final String CALLER = "dev.codeagent/caller";
    /** The one caller of a stdio server: the user who started it, whose runs this door records as {@link #OWNER}. */
    private static final Caller STDIO = Caller.owning(OWNER);

    /** The application's parts the tools ask: from a {@link CodeAgent}, or from the composition of {@code codeagent serve}. */
    record Parts(CodeAgentConfig config, Supplier<Sandbox> sandbox, Supplier<ExecuteCode> executeCode,
            Supplier<OpenSessions> openSessions, Supplier<SolveTask> solveTask, Supplier<RunLog> runLog) {

        static Parts of(CodeAgent agent) {
            return new Parts(agent.config(), agent::sandbox, agent::executeCode, agent::openSessions, agent::solveTask,
                    agent::runLog);
        }
    }

    McpTools(CodeAgent agent, Calls calls) {
        this(Parts.of(agent), calls);
    }

    McpTools(Parts agent, Calls calls) {
        this.agent = agent;
        this.mcp = McpConfig.from(agent.config());
        this.policy = mcp.policy();
        this.defaults = agent.config().limits().toResourceLimits();
        this.calls = calls;
    }

    List<SyncToolSpecification> tools() {
        long code = mcp.maxCodeBytes().bytes();
        return List.of(
                tool(Tool.builder("execute_code").title("Run a program in a sandbox")
                        .description("Runs one program in codeagent's sandbox (no network, no access to this machine's files,"
                                + " limited time and memory) and returns its stdout, stderr, outcome and exit facts; a compiled"
                                + " language is compiled first (the compile stage is in 'compile'). A program that fails returns"
                                + " isError with the reason on the first line. Nothing persists between calls: for state kept"
                                + " across calls use run_cell.")
                        .inputSchema(Schemas.executeCodeInput(code)).outputSchema(Schemas.executionOutput())
                        .annotations(annotations(false)).build(), this::executeCode),
                tool(Tool.builder("list_languages").title("Languages execute_code runs")
                        .description("Lists the language ids execute_code and solve_task accept here.")
                        .inputSchema(Schemas.listLanguagesInput()).outputSchema(Schemas.listLanguagesOutput())
                        .annotations(annotations(true)).build(), this::listLanguages),
                tool(Tool.builder("run_cell").title("Run a Python cell in this conversation's kernel")
                        .description("Runs Python in a kernel kept for this MCP session (like a Jupyter notebook: variables,"
                                + " imports and files stay between calls) inside the sandbox, without network. Returns stdout and"
                                + " stderr as text, plots as images, the last expression's value; an exception returns isError"
                                + " with 'Name: message' first. The kernel ends with the session or after it idles.")
                        .inputSchema(Schemas.runCellInput(code)).annotations(annotations(false)).build(), this::runCell),
                tool(Tool.builder("read_file").title("Read a file from this conversation's kernel")
                        .description("Reads a file the run_cell kernel's code wrote in its working directory (a path relative"
                                + " to it, at most 8 MiB): text as text, PNG and JPEG images as images, other bytes as a base64"
                                + " blob.")
                        .inputSchema(Schemas.readFileInput()).annotations(annotations(true)).build(), this::readFile),
                tool(Tool.builder("restart_kernel").title("Restart this conversation's Python kernel")
                        .description("Restarts the run_cell kernel: every variable and import is gone, files stay.")
                        .inputSchema(Schemas.noArguments()).annotations(annotations(false)).build(), this::restartKernel),
                tool(Tool.builder("solve_task").title("Have codeagent write and test a program")
                        .description("Asks codeagent's model to write a program for the prompt, runs it against the tests (or"
                                + " the expected output) in the sandbox, and repairs it from the failures, up to maxAttempts."
                                + " Reports progress per attempt; cancelling stops the running program. Returns the final code"
                                + " and each attempt's verdict; the run stays readable as the resource codeagent://runs/{id}.")
                        .inputSchema(Schemas.solveTaskInput()).annotations(annotations(false)).build(), this::solveTask));
    }

    List<SyncResourceTemplateSpecification> resources() {
        var template = McpSchema.ResourceTemplate.builder(RUN_URI + "{id}", "run")
                .description("A solve_task run with its attempts (code, execution, verdict), as JSON")
                .mimeType("application/json").build();
        return List.of(new SyncResourceTemplateSpecification(template, this::readRun));
    }

    private static McpSchema.ToolAnnotations annotations(boolean readOnly) {
        // the sandbox is closed to the network: no tool reaches the open world
        return McpSchema.ToolAnnotations.builder().readOnlyHint(readOnly).destructiveHint(false).openWorldHint(false).build();
    }

    /** A tool whose handler runs as one of {@link Calls}, and never lets an exception become a protocol error. */
    private SyncToolSpecification tool(Tool tool, BiFunction<McpSyncServerExchange, Invocation, CallToolResult> handler) {
        return SyncToolSpecification.builder().tool(tool).callHandler((exchange, request) -> {
            String requestId = request.meta() == null ? null : (String) request.meta().get(Calls.REQUEST_ID);
            try {
                return calls.run(exchange.sessionId(), requestId, call -> {
                    try {
                        return handler.apply(exchange, new Invocation(request, call));
                    } catch (ExecutionCancelledException e) {
                        return failure(call.cancelled() != null ? call.cancelled() : "stopped: " + e.getMessage());
                    } catch (OverloadedException e) {
                        return failure("busy: " + e.getMessage());
                    } catch (SandboxUnavailableException | ConfigException e) {
                        return failure("not available here: " + e.getMessage());
                    } catch (RuntimeException e) {
                        log.warn("tool {} failed", tool.name(), e);
                        return failure("internal error in " + tool.name() + ": " + e.getClass().getSimpleName()
                                + (e.getMessage() == null ? "" : ": " + e.getMessage()));
                    }
                });
            } catch (InterruptedException e) {
                return failure("cancelled by the client before it started");
            }
        }).build();
    }

    /** A call with its arguments and its place among the running calls. */
    record Invocation(CallToolRequest request, Calls.Call call) {
        Map<String, Object> arguments() {
            return request.arguments();
        }
    }

    // ---- execute_code, list_languages

    private CallToolResult executeCode(McpSyncServerExchange exchange, Invocation in) {
        ToolArguments a = new ToolArguments(in.arguments(), Set.of("language", "code", "stdin", "files", "limits"));
        Language language = language(a, a.string("language", true, 64));
        String code = a.string("code", true, mcp.maxCodeBytes().bytes());
        String stdin = a.string("stdin", false, 8L * 1024 * 1024);
        Map<String, String> files = a.strings("files", 64L * 1024 * 1024);
        ResourceLimits limits = limits(a);
        if (!a.errors.isEmpty()) {
            return failure(a.problem());
        }
        ExecutionRequest request;
        try {
            request = new ExecutionRequest(new Program(language, code, files), stdin, List.of(), limits);
        } catch (IllegalArgumentException e) {
            return failure("invalid arguments: " + (e.getMessage().startsWith("file name") ? "files" : "code") + ": " + e.getMessage());
        }
        ExecuteCode executeCode = agent.executeCode().get();
        try {
            executeCode.validate(request);
        } catch (InvalidRequestException e) {
            return failure("invalid arguments: " + e.getMessage());
        }
        Execution e = executeCode.execute(request);
        if (in.call().cancelled() != null) {
            return failure(in.call().cancelled() + " (the program was stopped: " + e.outcome() + ")");
        }
        return execution(e);
    }

    static CallToolResult execution(Execution e) {
        ExecutionView v = ExecutionView.of(e);
        boolean ok = e.outcome() == Outcome.OK;
        StringBuilder text = new StringBuilder(summary(v));
        if (v.compile() != null && !"OK".equals(v.compile().outcome())) {
            text.append("\n--- compiler ---\n").append(v.compile().stderr().isEmpty() ? v.compile().stdout() : v.compile().stderr());
        }
        if (!v.stdout().isEmpty()) {
            text.append("\n--- stdout").append(v.stdoutTruncated() ? " (truncated)" : "").append(" ---\n").append(v.stdout());
        }
        if (!v.stderr().isEmpty()) {
            text.append("\n--- stderr").append(v.stderrTruncated() ? " (truncated)" : "").append(" ---\n").append(v.stderr());
        }
        return CallToolResult.builder().addContent(text(text.toString())).isError(!ok)
                .structuredContent(JSON.convertValue(v, new TypeReference<Map<String, Object>>() { })).build();
    }

    /** The one line a model reads first: how it ended and why. */
    static String summary(ExecutionView v) {
        StringBuilder s = new StringBuilder(v.outcome());
        if (v.compile() != null && !"OK".equals(v.compile().outcome())) {
            s.append(": did not compile (").append(v.compile().outcome()).append(')');
        } else if (v.exitCode() != null) {
            s.append(": exit ").append(v.exitCode());
        } else if (v.signal() != null) {
            s.append(": killed by signal ").append(v.signal());
        }
        s.append(" in ").append(v.wallTimeMs()).append(" ms");
        // the program's own last word (the exception) says more than "exited with status 1"; the sandbox's detail
        // says which limit ended it
        String last = "OK".equals(v.outcome()) || v.outcome().endsWith("_LIMIT") ? null
                : v.stderr().lines().filter(l -> !l.isBlank()).reduce((x, y) -> y).map(String::strip).orElse(null);
        if (last != null) {
            s.append(" — ").append(last.length() > 300 ? last.substring(0, 300) + "…" : last);
        } else if (v.detail() != null && !v.detail().isBlank()) {
            s.append(" — ").append(v.detail().lines().findFirst().orElse(""));
        }
        return s.toString();
    }

    private CallToolResult listLanguages(McpSyncServerExchange exchange, Invocation in) {
        ToolArguments a = new ToolArguments(in.arguments(), Set.of());
        if (!a.errors.isEmpty()) {
            return failure(a.problem());
        }
        List<String> ids = supported().stream().map(Language::id).sorted().toList();
        return CallToolResult.builder().addContent(text(String.join(", ", ids)))
                .structuredContent(Map.of("languages", ids)).isError(false).build();
    }

    private Set<Language> supported() {
        return new TreeSet<>(agent.sandbox().get().languages());
    }

    private Language language(ToolArguments a, String id) {
        if (id == null) {
            return null;
        }
        FieldErrors found = new FieldErrors();
        Language language = Languages.resolve(id, supported(), found);
        found.list().forEach(e -> a.errors.add(e.field(), e.message()));
        return language;
    }

    private ResourceLimits limits(ToolArguments a) {
        FieldErrors errors = new FieldErrors();
        LimitOverrides overrides = LimitOverrides.fromTree(a.raw("limits"), "limits", errors);
        ResourceLimits limits = overrides == null ? null : overrides.applyTo(defaults, policy, "limits", errors);
        errors.list().forEach(e -> a.errors.add(e.field(), e.message()));
        return limits;
    }

    // ---- run_cell, restart_kernel

    private CallToolResult runCell(McpSyncServerExchange exchange, Invocation in) {
        ToolArguments a = new ToolArguments(in.arguments(), Set.of("code", "files"));
        String code = a.string("code", true, mcp.maxCodeBytes().bytes());
        Map<String, String> files = a.strings("files", 16L * 1024 * 1024);
        if (!a.errors.isEmpty()) {
            return failure(a.problem());
        }
        Kernel k = kernel(exchange.sessionId(), runOwner(exchange));
        if (k.refused() != null) {
            return failure(k.refused());
        }
        CellResult r;
        try {
            r = k.open().use(s -> {
                files.forEach((path, content) -> s.writeFile(path, content.getBytes(StandardCharsets.UTF_8)));
                return s.execute(new Cell(code));
            });
        } catch (SessionFileException e) {
            return failure("invalid arguments: files: " + e.getMessage());
        } catch (SessionEndedException e) {
            kernels.remove(key(exchange.sessionId()), k.open());
            return failure("the kernel ended (" + e.getMessage() + "); the next run_cell starts a new one, without the earlier state");
        } catch (IllegalStateException e) {
            return failure("busy: " + e.getMessage());
        }
        return cell(r, k.fresh());
    }

    /** A cell's outputs as MCP content: text as text, PNG images as images, rich data only as the sanitizer lets it out. */
    static CallToolResult cell(CellResult r, boolean fresh) {
        List<Content> content = new ArrayList<>();
        String first = r.status() == CellStatus.OK ? "" : r.error().map(e -> e.name() + ": " + e.value())
                .orElse(r.status() + (r.message().isEmpty() ? "" : ": " + r.message()));
        StringBuilder head = new StringBuilder(first);
        if (fresh) {
            head.append(head.length() == 0 ? "" : "\n").append("(a new kernel: nothing from earlier cells is defined)");
        }
        if (r.stateLost()) {
            head.append(head.length() == 0 ? "" : "\n").append("(the kernel's state was lost: earlier definitions are gone)");
        }
        if (head.length() > 0) {
            content.add(text(head.toString()));
        }
        for (CellOutput raw : r.outputs()) {
            CellOutput o = OutputSanitizer.output(raw);
            if (o instanceof CellOutput.Stream s) {
                content.add(text(s.name().equals("stderr") ? "[stderr] " + s.text() : s.text()));
            } else if (o instanceof CellOutput.DisplayData d) {
                bundle(d.data(), content);
            } else if (o instanceof CellOutput.ExecuteResult e) {
                bundle(e.data(), content);
            } else if (o instanceof CellOutput.Error e) {
                content.add(text(String.join("\n", e.traceback()).replaceAll("\u001b\\[[0-9;]*m", "")));
            }
        }
        if (content.isEmpty()) {
            content.add(text("(no output)"));
        }
        return CallToolResult.builder().content(content).isError(r.status() != CellStatus.OK).build();
    }

    private static void bundle(MimeBundle data, List<Content> content) {
        Map<String, String> d = data.data();
        if (d.containsKey(MimeBundle.IMAGE_PNG)) {
            content.add(McpSchema.ImageContent.builder(d.get(MimeBundle.IMAGE_PNG).replaceAll("\\s", ""), MimeBundle.IMAGE_PNG).build());
        } else if (d.containsKey("image/jpeg")) {
            content.add(McpSchema.ImageContent.builder(d.get("image/jpeg").replaceAll("\\s", ""), "image/jpeg").build());
        }
        if (d.containsKey("text/html")) {
            content.add(McpSchema.EmbeddedResource.builder(McpSchema.TextResourceContents
                    .builder("codeagent://cell-output.html", d.get("text/html")).mimeType("text/html").build()).build());
        }
        if (d.containsKey("application/json")) {
            content.add(text(d.get("application/json")));
        } else if (d.containsKey(MimeBundle.TEXT_PLAIN) && !d.containsKey(MimeBundle.IMAGE_PNG)) {
            content.add(text(d.get(MimeBundle.TEXT_PLAIN)));
        }
    }

    private CallToolResult readFile(McpSyncServerExchange exchange, Invocation in) {
        ToolArguments a = new ToolArguments(in.arguments(), Set.of("path"));
        String path = a.string("path", true, 4096);
        if (!a.errors.isEmpty()) {
            return failure(a.problem());
        }
        OpenSession open = kernels.get(key(exchange.sessionId()));
        if (open == null || open.endReason().isPresent()) {
            return failure("no kernel is running in this session: run_cell starts one, and files live in its working directory");
        }
        byte[] bytes;
        try {
            bytes = open.use(s -> s.readFile(path, SessionFiles.MAX_BYTES));
        } catch (SessionFileException e) {
            return failure("path: " + e.getMessage());
        } catch (SessionEndedException e) {
            kernels.remove(key(exchange.sessionId()), open);
            return failure("the kernel ended (" + e.getMessage() + ") and its files with it");
        } catch (IllegalStateException e) {
            return failure("busy: " + e.getMessage());
        }
        String lower = path.toLowerCase(java.util.Locale.ROOT);
        String image = lower.endsWith(".png") ? "image/png" : lower.endsWith(".jpg") || lower.endsWith(".jpeg") ? "image/jpeg" : null;
        Content content;
        if (image != null) {
            content = McpSchema.ImageContent.builder(java.util.Base64.getEncoder().encodeToString(bytes), image).build();
        } else {
            try {
                content = text(StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString());
            } catch (java.nio.charset.CharacterCodingException e) {
                content = McpSchema.EmbeddedResource.builder(McpSchema.BlobResourceContents.builder("codeagent://session-file/" + path,
                        java.util.Base64.getEncoder().encodeToString(bytes)).mimeType("application/octet-stream").build()).build();
            }
        }
        return CallToolResult.builder().addContent(content).isError(false).build();
    }

    private CallToolResult restartKernel(McpSyncServerExchange exchange, Invocation in) {
        ToolArguments a = new ToolArguments(in.arguments(), Set.of());
        if (!a.errors.isEmpty()) {
            return failure(a.problem());
        }
        OpenSession open = kernels.get(key(exchange.sessionId()));
        if (open == null || open.endReason().isPresent()) {
            return CallToolResult.builder().addContent(text("no kernel was running; the next run_cell starts a fresh one"))
                    .isError(false).build();
        }
        try {
            open.use(s -> {
                s.restart();
                return null;
            });
        } catch (SessionEndedException e) {
            kernels.remove(key(exchange.sessionId()), open);
            return CallToolResult.builder().addContent(text("the kernel had ended (" + e.getMessage()
                    + "); the next run_cell starts a fresh one")).isError(false).build();
        } catch (IllegalStateException e) {
            return failure("busy: " + e.getMessage());
        }
        return CallToolResult.builder().addContent(text("restarted: every variable and import is gone; files are kept"))
                .isError(false).build();
    }

    /** This MCP session's kernel, opened on first use and again after it ended. */
    private record Kernel(OpenSession open, boolean fresh, String refused) {
    }

    private static String key(String sessionId) {
        return sessionId == null ? "" : sessionId;
    }

    private Kernel kernel(String sessionId, String owner) {
        String key = key(sessionId);
        synchronized (kernels) {
            OpenSession have = kernels.get(key);
            if (have != null && have.endReason().isEmpty()) {
                return new Kernel(have, false, null);
            }
            boolean before = have != null;
            SessionLimits limits = SessionLimits.defaults();
            if (limits.memoryBytes() > mcp.maxMemory().bytes()) {
                limits = limits.withMemoryBytes(mcp.maxMemory().bytes());
            }
            if (limits.cellTimeout().compareTo(mcp.maxTimeout()) > 0) {
                limits = limits.withCellTimeout(mcp.maxTimeout());
            }
            try {
                OpenSession open = agent.openSessions().get().open(owner + ":" + key, limits);
                kernels.put(key, open);
                return new Kernel(open, before, null);
            } catch (SessionRefusedException e) {
                return new Kernel(null, false, "no kernel: " + e.getMessage());
            } catch (SandboxUnavailableException e) {
                return new Kernel(null, false, "no kernel here: " + e.getMessage());
            }
        }
    }

    // ---- solve_task and its runs

    private CallToolResult solveTask(McpSyncServerExchange exchange, Invocation in) {
        ToolArguments a = new ToolArguments(in.arguments(),
                Set.of("prompt", "language", "tests", "expectedOutput", "stdin", "maxAttempts", "limits"));
        String prompt = a.string("prompt", true, 4L * McpConfig.MAX_PROMPT_CHARS);
        String language = a.string("language", true, 64);
        String tests = a.string("tests", false, mcp.maxCodeBytes().bytes());
        String expected = a.string("expectedOutput", false, 8L * 1024 * 1024);
        String stdin = a.string("stdin", false, 8L * 1024 * 1024);
        Integer maxAttempts = a.integer("maxAttempts", 1, 20);
        FieldErrors limitErrors = new FieldErrors();
        LimitOverrides overrides = LimitOverrides.fromTree(a.raw("limits"), "limits", limitErrors);
        limitErrors.list().forEach(e -> a.errors.add(e.field(), e.message()));
        if (!a.errors.isEmpty()) {
            return failure(a.problem());
        }
        FieldErrors errors = new FieldErrors();
        Task task = new TaskRequest(prompt, language, tests, expected, stdin, overrides == null ? LimitOverrides.NONE : overrides,
                maxAttempts).toTask(new TaskRequest.Defaults(defaults, agent.config().solve().maxAttempts()), supported(), policy, errors);
        if (!errors.isEmpty()) {
            errors.list().forEach(e -> a.errors.add(e.field(), e.message()));
            return failure(a.problem());
        }
        SolveTask solve = agent.solveTask().get();
        String runId = SolveTask.newRunId();
        Object token = in.request().progressToken();
        Run run = solve.solve(runId, task, runOwner(exchange), event -> progress(exchange, token, event),
                () -> in.call().cancelled() == null ? null : new StopReason(RunStatus.CANCELLED, in.call().cancelled()));
        return run(run);
    }

    /** One progress notification per attempt started and judged, when the client asked for progress. */
    private static void progress(McpSyncServerExchange exchange, Object token, RunEvent event) {
        if (token == null) {
            return;
        }
        McpSchema.ProgressNotification n = null;
        if (event instanceof RunEvent.AttemptStarted s) {
            n = new McpSchema.ProgressNotification(token, 2 * (s.attempt() - 1), 2.0 * s.maxAttempts(),
                    "attempt " + s.attempt() + " of " + s.maxAttempts() + ": generating (" + RUN_URI + s.runId() + ")");
        } else if (event instanceof RunEvent.Judged j) {
            n = new McpSchema.ProgressNotification(token, 2 * j.attempt().number() - 1, null,
                    "attempt " + j.attempt().number() + ": " + j.attempt().verdict().kind() + " " + j.attempt().verdict().message()
                            + " (" + RUN_URI + j.runId() + ")");
        }
        if (n != null) {
            try {
                exchange.progressNotification(n);
            } catch (RuntimeException e) {
                log.debug("progress not delivered: {}", e.getMessage());
            }
        }
    }

    static CallToolResult run(Run run) {
        RunView v = RunView.of(run);
        StringBuilder text = new StringBuilder(v.status());
        text.append(" after ").append(v.attemptCount()).append(v.attemptCount() == 1 ? " attempt" : " attempts");
        if (v.reason() != null && !v.reason().isBlank()) {
            text.append(" — ").append(v.reason());
        }
        text.append("\nrun: ").append(RUN_URI).append(v.id());
        for (AttemptView at : v.attempts()) {
            text.append("\nattempt ").append(at.number()).append(": ")
                    .append(at.verdict() == null ? "no verdict" : at.verdict().kind() + " " + at.verdict().message());
        }
        if (v.code() != null) {
            text.append("\n--- code ---\n").append(v.code());
        }
        return CallToolResult.builder().addContent(text(text.toString()))
                .structuredContent(JSON.convertValue(v, new TypeReference<Map<String, Object>>() { }))
                .isError(run.status() != RunStatus.SOLVED).build();
    }

    private McpSchema.ReadResourceResult readRun(McpSyncServerExchange exchange, McpSchema.ReadResourceRequest request) {
        String id = request.uri().startsWith(RUN_URI) ? request.uri().substring(RUN_URI.length()) : "";
        // another owner's run is "not found" too: an id is no oracle
        Run run = id.isEmpty() || id.length() > 128 ? null : agent.runLog().get().find(id).filter(caller(exchange)::sees).orElse(null);
        if (run == null) {
            throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND).message("no run " + request.uri()
                    + " (runs are those solve_task started here)").build();
        }
        try {
            return new McpSchema.ReadResourceResult(List.of(McpSchema.TextResourceContents.builder(request.uri(),
                    JSON.writeValueAsString(RunView.of(run))).mimeType("application/json").build()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("a run view is not JSON: " + e.getMessage(), e);
        }
    }

    // ---- who calls

    /** Who made the call: the HTTP door's caller its transport passed along, or the stdio server's one user. */
    static Caller caller(McpSyncServerExchange exchange) {
        return exchange.transportContext() != null && exchange.transportContext().get(CALLER) instanceof Caller c ? c : STDIO;
    }

    /**
     * What the caller's runs and kernels are recorded as: its key ({@code key:NAME}); {@link #OWNER} over stdio, and
     * over HTTP without auth, where callers are not told apart.
     */
    static String runOwner(McpSyncServerExchange exchange) {
        String owner = caller(exchange).owner();
        return owner == null ? OWNER : owner;
    }

    /** Ends what MCP session {@code sessionId} holds (its kernel) now that the client ended the session. */
    void endSession(String sessionId) {
        OpenSession open = kernels.remove(key(sessionId));
        if (open != null) {
            open.close();
        }
        calls.forget(sessionId);
    }

    // ----

    static CallToolResult failure(String reason) {
        return CallToolResult.builder().addContent(text(reason)).isError(true).build();
    }

    private static TextContent text(String s) {
        return new TextContent(s);
    }

    @Override
    public void close() {
        kernels.values().forEach(OpenSession::close);
        kernels.clear();
    }
}
