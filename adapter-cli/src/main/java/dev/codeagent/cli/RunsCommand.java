package dev.codeagent.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.run.VisibleRuns;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code codeagent runs}: the run history kept by the run log (store.kind). */
@Command(name = "runs",
        description = {"List your recent runs of 'codeagent solve', newest first; 'runs show ID' shows one with its attempts.",
                "A run belongs to whoever started it: you (as your local user), an HTTP API key; --all lists every run the"
                        + " store holds, those of other users and keys and those from before runs had owners."},
        usageHelpAutoWidth = true,
        subcommands = RunsCommand.Show.class,
        footerHeading = "%nExit status:%n",
        footer = {"  0  listed or shown", "  1  runs show: no run with that id", "  2  bad usage or config"})
final class RunsCommand implements Callable<Integer> {

    private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneId.systemDefault());
    private static final int PROMPT_WIDTH = 60;

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "20", description = "How many runs to list, 1 to 1000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print a JSON array: id, status, attempts, maxAttempts, startedAt, endedAt, prompt, owner.")
    boolean json;

    @Option(names = "--all", description = "List every run in the store, not only yours (anyone who can open the store can"
            + " read it all: its file or database permissions are the boundary, not this flag).")
    boolean all;

    @Option(names = "--status", paramLabel = "STATUS[,STATUS...]", description = "List only runs of these statuses: RUNNING,"
            + " SOLVED, FAILED, ERROR, CANCELLED (any case, several separated by commas); the store filters, so --limit"
            + " counts only those.")
    String status;

    /** Who asks: the local user, or, with --all, as an operator. */
    static Caller caller(boolean all) {
        Caller me = Caller.localUser();
        return all ? me.asOperator() : me;
    }

    @Override
    public Integer call() {
        if (limit < 1 || limit > 1000) {
            throw new UsageException("--limit must be between 1 and 1000, was " + limit);
        }
        Set<RunStatus> statuses;
        try {
            statuses = RunStatus.parseList(status);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--status: " + e.getMessage());
        }
        // with none of yours, whether the store has others' says which hint helps (the store is readable to you anyway)
        boolean[] othersExist = new boolean[1];
        List<Run> runs = withRunLog(cli, log -> {
            List<Run> page = new VisibleRuns(log).recent(caller(all), statuses, limit, null);
            othersExist[0] = page.isEmpty() && statuses.isEmpty() && !all && !log.recent(1, null).isEmpty();
            return page;
        });
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ArrayNode array = JsonNodeFactory.instance.arrayNode();
            runs.forEach(r -> array.add(Json.runSummary(r)));
            out.println(Json.write(array));
        } else if (runs.isEmpty() && !statuses.isEmpty()) {
            spec.commandLine().getErr().println("codeagent: no runs" + (all ? "" : " of yours") + " with status "
                    + statuses.stream().map(RunStatus::name).collect(java.util.stream.Collectors.joining(" or ")));
        } else if (runs.isEmpty()) {
            spec.commandLine().getErr().println(!othersExist[0] ? "codeagent: no runs yet (codeagent solve … starts one)"
                    : "codeagent: no runs of yours (" + caller(false).owner() + ") yet; 'codeagent runs --all' lists"
                            + " the store's other runs (other users', API keys', older ones)");
        } else {
            int idWidth = runs.stream().mapToInt(r -> r.id().length()).max().orElse(2);
            String format = "%-" + idWidth + "s  %-9s  %-8s  %-19s  %s%n";
            out.printf(format, "ID", "STATUS", "ATTEMPTS", "STARTED", "PROMPT");
            for (Run r : runs) {
                out.printf(format, r.id(), r.status(), r.attempts().size() + "/" + r.task().maxAttempts(),
                        WHEN.format(r.startedAt()), head(r.task().prompt()));
            }
        }
        out.flush();
        return ExitStatus.OK;
    }

    /**
     * Opens the configured run log, marks runs an ended process left RUNNING, and applies {@code use}.
     * The sandbox is irrelevant to reading history, so the always-available process tier is composed
     * (best-effort) instead of the configured one: a stopped Docker engine must not hide the history.
     */
    static <T> T withRunLog(CodeAgentCli cli, Function<RunLog, T> use) {
        CodeAgentConfig config = cli.config(Map.of("sandbox.kind", "process", "sandbox.isolation", "best-effort"));
        try (CodeAgent agent = cli.agent(config)) {
            agent.service(CliServices.class).recoverInterruptedRuns();
            return use.apply(agent.runLog());
        }
    }

    static String head(String prompt) {
        String line = prompt.strip().lines().findFirst().orElse("");
        boolean more = line.length() > PROMPT_WIDTH || prompt.strip().contains("\n");
        return (line.length() > PROMPT_WIDTH ? line.substring(0, PROMPT_WIDTH) : line) + (more ? "…" : "");
    }

    /** {@code codeagent runs show ID}. */
    @Command(name = "show", description = "Show one run with its attempts: verdicts, errors, code and output.", usageHelpAutoWidth = true)
    static final class Show implements Callable<Integer> {

        @ParentCommand
        RunsCommand runs;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "ID", description = "The run's id (see 'codeagent runs').")
        String id;

        @Option(names = "--json", description = "Print the run as JSON: id, status, attempts, code, output, reason, prompt, language, startedAt, endedAt.")
        boolean json;

        @Option(names = "--all", description = "Show the run whoever started it (another user, an API key, or no one"
                + " before runs had owners); without it only your own runs are shown.")
        boolean all;

        @Override
        public Integer call() {
            boolean anyone = all || runs.all;
            Optional<Run> found = withRunLog(runs.cli, log -> new VisibleRuns(log).find(caller(anyone), id));
            if (found.isEmpty()) {
                // as for no run at all: another's run is shown only with --all (see the option)
                throw new UsageException("no run with id '" + id + "' (see 'codeagent runs')", ExitStatus.FAILURE);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(Json.write(Json.run(found.get())));
            } else {
                show(found.get(), out);
            }
            out.flush();
            return ExitStatus.OK;
        }

        private static void show(Run run, PrintWriter out) {
            out.println("run       " + run.id());
            out.println("status    " + run.status() + (run.reason() == null ? "" : " (" + Failures.oneLine(run.reason()) + ")"));
            out.println("language  " + run.task().language().id());
            out.println("owner     " + (run.owner() == null ? "(none: from before runs had owners, or an HTTP server without auth)"
                    : run.owner()));
            out.println("started   " + WHEN.format(run.startedAt()));
            if (run.endedAt() != null) {
                out.println("ended     " + WHEN.format(run.endedAt()) + " (" + SolveCommand.seconds(Duration.between(run.startedAt(), run.endedAt())) + ")");
            }
            out.println("attempts  " + run.attempts().size() + "/" + run.task().maxAttempts());
            out.println("prompt");
            run.task().prompt().strip().lines().forEach(l -> out.println("  " + l));
            for (Attempt a : run.attempts()) {
                out.println();
                out.println("── attempt " + a.number() + ": " + ProgressPrinter.describe(a.verdict())
                        + "  (generation " + SolveCommand.seconds(a.generationTime()) + ", execution " + SolveCommand.seconds(a.executionTime())
                        // where it ran: the tier its execution reports (a queued run's attempts may come from several workers)
                        + (a.execution() == null ? "" : ", " + a.execution().isolation().tier() + " sandbox") + ")");
                if (a.placement() != null) {
                    out.println("made on   " + a.placement().host() + " (pid " + a.placement().pid() + ", " + a.placement().tier()
                            + " tier)");
                }
                section(out, "code", a.code());
                if (a.execution() != null) {
                    section(out, "stdout", a.execution().stdout().text());
                    section(out, "stderr", a.execution().stderr().text());
                }
            }
        }

        private static void section(PrintWriter out, String title, String text) {
            if (text == null || text.isEmpty()) {
                return;
            }
            out.println("-- " + title);
            out.print(text);
            if (!text.endsWith("\n")) {
                out.println();
            }
        }
    }
}
