package dev.codeagent.jupyter;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
import org.dflib.jjava.jupyter.messages.publish.PublishError;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteInput;
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
 *
 * <p>What a cell does lives beside it: code cells run in the {@link KernelSession}, {@code %%solve} and
 * {@code %%tests} are the {@link SolveCell}, the line magics are {@link KernelMagics}.
 */
public final class CodeAgentKernel extends BaseKernel {

    private static final Logger log = LoggerFactory.getLogger(CodeAgentKernel.class);

    private final KernelSession session;
    private final SolveCell solveCell;
    private final KernelMagics magics;
    /**
     * Execute requests the client sent before this instant (its clock) are aborted: they were queued behind a cell that
     * failed with stop_on_error, as "Run All" queues them; a request sent after the client saw the error runs.
     */
    private volatile java.time.Instant abortBefore;

    /**
     * @param configs the effective config for a set of overrides (dotted keys) on top of the kernel's own, e.g.
     *     {@code sandbox.kind=docker} after {@code %sandbox docker}
     * @param agents the composition root's: an agent composed for a config (the entry point passes its own, so the
     *     kernel wires nothing itself)
     */
    public CodeAgentKernel(Function<Map<String, String>, CodeAgentConfig> configs, Function<CodeAgentConfig, CodeAgent> agents) {
        super("codeagent", version(), languageInfo(), List.of(), null, new JupyterIO(java.nio.charset.StandardCharsets.UTF_8),
                new CommManager(), new Renderer(), null, null, false, new StringStyler.Builder().build());
        this.session = new KernelSession(configs, agents);
        this.solveCell = new SolveCell(session);
        this.magics = new KernelMagics(session);
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
        session.start();
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

    /** @return null when the cell went well */
    private Failure run(String code, Notebook out) {
        CellCommand command = code.strip().equals("%help") || code.strip().equals("%codeagent")
                ? new CellCommand.LineMagics(List.of(new CellCommand.Line("help", List.of())))
                : CellCommand.parse(code);
        if (command instanceof CellCommand.Code c) {
            return session.runCode(c.source(), out);
        }
        if (command instanceof CellCommand.Tests t) {
            return solveCell.keepTests(t, out);
        }
        if (command instanceof CellCommand.Solve s) {
            return solveCell.solve(s, out);
        }
        for (CellCommand.Line line : ((CellCommand.LineMagics) command).lines()) {
            magics.lineMagic(line, out);
        }
        return null;
    }

    // ---- interrupt and shutdown

    @Override
    public void interrupt() {
        solveCell.cancel();
        session.interrupt();
    }

    @Override
    public void onShutdown(boolean restart) {
        solveCell.cancel();
        session.shutdown();
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

    static String oneLine(String text) {
        return text.strip().replaceAll("\\s*\\R\\s*", " ");
    }
}
