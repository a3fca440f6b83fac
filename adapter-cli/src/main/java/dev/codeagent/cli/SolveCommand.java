package dev.codeagent.cli;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.command.InputPolicy;
import dev.codeagent.application.command.TaskRequest;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.work.SubmitQueuedRun;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code codeagent solve "TASK"}: the agent loop — generate, run, judge, feed the error back, until solved. */
@Command(name = "solve",
        description = {"Let a model write code for a task, run it in the sandbox, judge it and fix it until it works.",
            "Progress goes to stderr; the final code and its output to stdout."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {
            "  0    solved",
            "  1    not solved: the attempts are spent, or the run ended in ERROR",
            "  2    bad usage or input (task, files, config)",
            "  125  the sandbox is unavailable      130  interrupted",
            "",
            "Task file (JSON; every field optional, flags win):",
            "  {\"prompt\": \"…\", \"language\": \"python\", \"tests\": \"assert f(2) == 4\",",
            "   \"expectedOutput\": null, \"stdin\": \"\", \"maxAttempts\": 3,",
            "   \"limits\": {\"timeoutMs\": 5000, \"memoryBytes\": \"256m\"}}",
            "",
            "Examples:",
            "  codeagent solve --task-file examples/middle-task.json \\",
            "      --replay examples/middle.replay.jsonl",
            "  codeagent solve \"print the first 10 primes, one per line\" \\",
            "      --llm-base-url http://localhost:11434/v1 --llm-model qwen2.5-coder:7b",
            "  CODEAGENT_LLM_API_KEY=sk-… codeagent solve --task-file task.json \\",
            "      --llm-base-url https://api.openai.com/v1 --llm-model gpt-4o-mini"})
final class SolveCommand implements Callable<Integer> {

    /** Whose the runs this command starts are: the user it runs as ('codeagent runs' lists them). */
    private static final String OWNER = dev.codeagent.application.run.Caller.localUser().owner();

    private static final Logger log = LoggerFactory.getLogger(SolveCommand.class);

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..*", paramLabel = "TASK", description = "What the code should do (words are joined); overrides the task file's prompt.")
    List<String> prompt = new ArrayList<>();

    @Option(names = "--task-file", paramLabel = "FILE", description = "The task as JSON: prompt, language, tests, expectedOutput, stdin, limits, maxAttempts.")
    String taskFile;

    @Option(names = "--tests", paramLabel = "FILE", description = "Code that asserts on the generated code (appended to it when judging).")
    String testsFile;

    @Option(names = "--expected-output", paramLabel = "FILE", description = "The stdout a correct program prints.")
    String expectedOutputFile;

    @Option(names = "--stdin", paramLabel = "FILE", description = "The input the program is run with.")
    String stdinFile;

    @Option(names = {"-l", "--language"}, paramLabel = "LANG", converter = Converters.LanguageConverter.class,
            description = "python, javascript or bash (default: the task file's, else python).")
    Language language;

    @Option(names = "--max-attempts", paramLabel = "N", description = "Attempts allowed, 1 to 20 (default: the task file's, else solve.maxAttempts, 3).")
    Integer maxAttempts;

    @Option(names = "--generator", paramLabel = "KIND", description = "openai (any OpenAI-compatible endpoint) or replay (config generator.kind).")
    String generator;

    @Option(names = "--replay", paramLabel = "FILE", description = "Recorded replies (JSONL, one {\"reply\": …} a line) to play back; implies --generator replay.")
    Path replay;

    @Option(names = "--llm-base-url", paramLabel = "URL", description = "OpenAI-compatible API base, up to /v1 (CODEAGENT_LLM_BASE_URL).")
    String baseUrl;

    @Option(names = "--llm-model", paramLabel = "MODEL", description = "Model name (CODEAGENT_LLM_MODEL). The key comes from CODEAGENT_LLM_API_KEY.")
    String model;

    @Mixin
    LimitOptions limits;

    @Option(names = "--queue", description = "Queue the run for the workers of a shared store (store.kind: postgres; see 'codeagent worker') and wait for its end, instead of solving here.")
    boolean queue;

    @Option(names = "--session", description = "Run every attempt's code also in one live Python session, so what an attempt"
            + " defined stays for the next and the model is told what the session holds; the verdict still comes from the"
            + " judge, in a fresh sandbox.")
    boolean session;

    @Option(names = "--json", description = "Print one JSON object: id, status, attempts, code, output, reason.")
    boolean json;

    @Override
    public Integer call() {
        CodeAgentConfig config = cli.config(overrides());
        Task task = task(config);
        // sandbox.kind: queue (what --queue sets) hands the run whole to the workers
        boolean queued = CodeAgentCli.onTheWorkers(config);
        if (session && queued) {
            throw new UsageException("--session and " + CodeAgentCli.queueSource(queue)
                    + " do not go together: a queued run is solved by a worker, without your session");
        }
        if (session && task.language() != Language.PYTHON) {
            throw new UsageException("--session runs Python; this task is " + task.language().id());
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Run run;
        try (CodeAgent agent = cli.agent(config)) {
            CliServices services = agent.service(CliServices.class);
            int marked = services.recoverInterruptedRuns();
            if (marked > 0) {
                log.debug("marked {} runs left RUNNING by an earlier process as ERROR", marked);
            }
            if (queued) {
                run = solveQueued(services, config, task, err);
            } else {
                SolveTask solveTask = agent.solveTask();
                RunListener progress = json ? RunListener.NONE : new ProgressPrinter(err, cli.context().interactive(), task.maxAttempts());
                if (session) {
                    try (dev.codeagent.application.session.OpenSession s = SessionCommand.open(agent,
                            dev.codeagent.domain.session.SessionLimits.defaults())) {
                        // in use for the whole run: the registry's idle clock does not run while the model thinks
                        run = s.use(session -> solveTask.solveInSession(SolveTask.newRunId(), task, OWNER, progress,
                                () -> dev.codeagent.application.solve.StopReason.CANCELLED, session));
                    }
                } else {
                    run = solveTask.solve(SolveTask.newRunId(), task, OWNER, progress,
                            () -> dev.codeagent.application.solve.StopReason.CANCELLED);
                }
            }
            // shown before closing: the user need not wait for the sandbox's clean-up
            if (json) {
                out.println(Json.write(Json.run(run)));
            } else {
                print(run, out, err);
            }
            out.flush();
            IsolationWarning.print(err, run.attempts().stream()
                    .map(a -> a.execution() == null ? null : a.execution().isolation()).toList());
            err.flush();
        }
        if (run.status() == RunStatus.SOLVED) {
            return ExitStatus.OK;
        }
        return run.status() == RunStatus.CANCELLED ? ExitStatus.INTERRUPTED : ExitStatus.FAILURE;
    }

    private Run solveQueued(CliServices services, CodeAgentConfig config, Task task, PrintWriter err) {
        SubmitQueuedRun submit = services.queuedRuns().orElseThrow(() -> new UsageException(CodeAgentCli.queueSource(queue)
                + " needs a store that keeps a queue for workers (store.kind: postgres), not " + config.store().kind()));
        Run queued = submit.submit(task, OWNER);
        if (!json) {
            err.println("codeagent: queued run " + queued.id() + " (" + submit.waiting() + " waiting); waiting for a worker");
            err.flush();
        }
        try {
            return submit.awaitEnd(queued.id(), r -> {
                if (!json && !r.attempts().isEmpty()) {
                    Attempt last = r.lastAttempt();
                    err.println("codeagent: attempt " + last.number() + "/" + task.maxAttempts() + ": " + last.verdict().kind());
                    err.flush();
                }
            });
        } catch (InterruptedException e) {
            // handled here, to the end: the run is cancelled and the command ends with the interrupted status; the flag
            // is not set again, or closing the store's pool afterwards is itself interrupted
            submit.cancel(queued.id(), "cancelled by the user who queued it");
            throw new UsageException("interrupted; asked the workers to cancel run " + queued.id(), ExitStatus.INTERRUPTED);
        }
    }

    private Map<String, String> overrides() {
        Map<String, String> o = new LinkedHashMap<>(limits.overrides());
        CodeAgentCli.queueFlag(queue, o);
        if (replay != null) {
            if (!Files.isRegularFile(replay) || !Files.isReadable(replay)) {
                throw new UsageException(replay + ": no such file (--replay)");
            }
            o.put("generator.replay.file", replay.toAbsolutePath().toString());
            o.put("generator.kind", "replay");
        }
        if (generator != null) {
            o.put("generator.kind", generator);
        }
        if (baseUrl != null) {
            o.put("generator.openai.baseUrl", baseUrl);
        }
        if (model != null) {
            o.put("generator.openai.model", model);
        }
        return o;
    }

    /** The task from the task file and the flags, flags winning. @throws UsageException when it is incomplete or wrong */
    private Task task(CodeAgentConfig config) {
        TaskRequest file = TaskRequest.empty();
        if (taskFile != null) {
            file = TaskFile.parse(taskFile, Inputs.read(taskFile, cli.context(), "task file", Inputs.MAX_INPUT_BYTES, null).text());
        }
        String text = !prompt.isEmpty() ? String.join(" ", prompt) : file.prompt();
        if (text == null || text.isBlank()) {
            throw new UsageException("no task: give it as an argument (codeagent solve \"…\") or in a --task-file with a \"prompt\"");
        }
        TaskRequest flags = new TaskRequest(text, language == null ? null : language.id(),
                testsFile != null ? readAll(testsFile, "tests") : null,
                expectedOutputFile != null ? readAll(expectedOutputFile, "expected output") : null,
                stdinFile != null ? readAll(stdinFile, "input") : null,
                limits.requested(), maxAttempts);
        // explicit flags win over the task file, which wins over the config
        FieldErrors errors = new FieldErrors();
        Task task = file.overriddenBy(flags).toTask(new TaskRequest.Defaults(LimitOptions.resolve(config), config.solve().maxAttempts()),
                EnumSet.allOf(Language.class), LimitOptions.policy(config), errors);
        if (task == null) {
            // "maxAttempts must be …", but not "tests tests are judged …" when the message names its field itself
            throw new UsageException("invalid task: " + errors.firstLine(e -> e.message().startsWith(e.field() + " ")
                    ? e.message() : e.field() + " " + e.message()));
        }
        return task;
    }

    private String readAll(String file, String what) {
        if ("-".equals(file)) {
            throw new UsageException("--" + what.replace(' ', '-') + " needs a file, not -");
        }
        return Inputs.read(file, cli.context(), what, Inputs.MAX_INPUT_BYTES, null).text();
    }

    private static void print(Run run, PrintWriter out, PrintWriter err) {
        Attempt last = run.lastAttempt();
        if (last != null && !last.code().isEmpty()) {
            out.print(last.code());
            if (!last.code().endsWith("\n")) {
                out.println();
            }
            String output = last.execution() == null ? "" : last.execution().stdout().text();
            if (!output.isEmpty()) {
                out.println("--- output ---");
                out.print(output);
                if (!output.endsWith("\n")) {
                    out.println();
                }
            }
        }
        out.flush();
        int n = run.attempts().size();
        int max = run.task().maxAttempts();
        String took = run.endedAt() == null ? "" : " in " + seconds(Duration.between(run.startedAt(), run.endedAt()));
        switch (run.status()) {
            case SOLVED:
                err.println("codeagent: solved on attempt " + n + "/" + max + took + " (run " + run.id() + ")");
                break;
            case FAILED:
                err.println("codeagent: not solved after " + n + "/" + max + " attempts" + took
                        + (last == null ? "" : "; last verdict " + ProgressPrinter.describe(last.verdict())) + " (run " + run.id() + ")");
                break;
            default:
                err.println("codeagent: run " + run.id() + " ended " + run.status() + " after " + n + " attempt" + (n == 1 ? "" : "s")
                        + (run.reason() == null ? "" : ": " + Failures.oneLine(run.reason())));
        }
    }

    static String seconds(Duration d) {
        long ms = d.toMillis();
        return ms < 1000 ? ms + "ms" : String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
    }
}
