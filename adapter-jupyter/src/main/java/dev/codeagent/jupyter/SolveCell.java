package dev.codeagent.jupyter;

import static dev.codeagent.jupyter.CodeAgentKernel.oneLine;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.LimitOverrides;
import dev.codeagent.application.command.TaskRequest;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.solve.StopReason;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.session.MimeBundle;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kernel's {@code %%solve} cell (and the {@code %%tests} cell it is judged by): the cell's body is a task the
 * agent solves, Python tasks in the notebook's session so the accepted code is defined there.
 */
final class SolveCell {

    private static final Logger log = LoggerFactory.getLogger(SolveCell.class);

    private final KernelSession session;
    private String pendingTests;
    private volatile Future<?> solving;

    SolveCell(KernelSession session) {
        this.session = session;
    }

    /** {@code %%tests}: kept for the next {@code %%solve}. */
    Failure keepTests(CellCommand.Tests t, Notebook out) {
        pendingTests = t.tests();
        int lines = t.tests().strip().split("\\R").length;
        out.stdout("codeagent: tests kept for the next %%solve (" + lines + (lines == 1 ? " line)\n" : " lines)\n"));
        return null;
    }

    Failure solve(CellCommand.Solve s, Notebook out) {
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
            taskLimits = taskLimits.withTimeout(KernelMagics.duration("--timeout", o.get("timeout")));
        }
        if (o.containsKey("memory")) {
            taskLimits = taskLimits.withMemoryBytes(KernelMagics.bytes("--memory", o.get("memory")));
        }
        String tests = pendingTests;
        CodeAgent a = session.agent();
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
        OpenSession shared = inSession ? session.session() : null;
        SolveTask solveTask = a.solveTask();
        String runId = SolveTask.newRunId();
        out.stdout("codeagent: run " + runId + ", up to " + task.maxAttempts() + " attempt" + (task.maxAttempts() == 1 ? "" : "s")
                + " in the " + a.sandbox().tier() + " sandbox" + (tests != null ? ", judged by the tests of %%tests" : "")
                + "\n");
        // the kernel runs as the notebook's user: its runs are theirs, as 'codeagent solve' runs are
        String owner = dev.codeagent.application.run.Caller.localUser().owner();
        Future<Run> work = session.submit(() -> inSession
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

    /** Cancels the run in progress, if any (an interrupt, the kernel's shutdown). */
    void cancel() {
        Future<?> run = solving;
        if (run != null) {
            run.cancel(true);
        }
    }
}
