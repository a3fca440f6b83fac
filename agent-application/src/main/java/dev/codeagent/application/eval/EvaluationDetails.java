package dev.codeagent.application.eval;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a report of one evaluation shows: the summary, and every judged sample with its code, grouped by problem, so a
 * reader can go from a verdict to the code that earned it. Doors render it (the CLI's HTML report, the console); what
 * is in it is decided here.
 *
 * @param subject what was evaluated, in words ({@code HumanEval.jsonl, samples from s.jsonl})
 * @param sandbox the sandbox tier the programs ran in
 * @param summary the evaluation's counts, verdicts and timings
 * @param passAtK pass@k as reported to the user, by k; NaN for a k past the fewest samples any problem has
 * @param passAtKBeforeRepair pass@k of the generator's first attempts when the agent loop repaired samples; else empty
 * @param problems the problems that had samples, in the problem file's order
 */
public record EvaluationDetails(
        String subject,
        String sandbox,
        EvaluationReport summary,
        SortedMap<Integer, Double> passAtK,
        SortedMap<Integer, Double> passAtKBeforeRepair,
        List<ProblemDetails> problems) {

    public EvaluationDetails {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(summary, "summary");
        passAtK = Collections.unmodifiableSortedMap(new TreeMap<>(passAtK));
        passAtKBeforeRepair = Collections.unmodifiableSortedMap(new TreeMap<>(passAtKBeforeRepair));
        problems = List.copyOf(problems);
    }

    /**
     * One problem and its samples.
     *
     * @param taskId the dataset's id
     * @param prompt what the problem asks (HumanEval: the signature and docstring; MBPP and IO: the statement)
     * @param codePrefix what the judged program has before each completion (HumanEval: the prompt; else empty): error
     *     lines count from the start of {@code codePrefix + completion}
     * @param error why the problem's tests cannot load, so its samples were not judged; null when they were
     * @param samples its samples by index
     */
    public record ProblemDetails(String taskId, String prompt, String codePrefix, String error, List<SampleDetails> samples) {

        public ProblemDetails {
            Objects.requireNonNull(taskId, "taskId");
            prompt = prompt == null ? "" : prompt;
            codePrefix = codePrefix == null ? "" : codePrefix;
            samples = List.copyOf(samples);
        }
    }

    /**
     * One sample: its result and its code.
     *
     * @param result how it fared
     * @param completion the code that was checked (after {@link ProblemDetails#codePrefix()})
     */
    public record SampleDetails(SampleResult result, String completion) {

        public SampleDetails {
            Objects.requireNonNull(result, "result");
            completion = completion == null ? "" : completion;
        }
    }

    /**
     * The details of a finished benchmark.
     *
     * @param problems the problem set it ran
     * @param result what it found
     * @param passAtK pass@k as the user was told it (the standard k, or the k they asked for)
     * @param subject what was evaluated, in words
     */
    public static EvaluationDetails of(ProblemSet problems, RunBenchmark.Result result, SortedMap<Integer, Double> passAtK,
            String subject) {
        Map<String, String> code = new HashMap<>();
        result.checked().forEach(s -> code.put(key(s.taskId(), s.index()), s.completion()));
        Map<String, List<SampleDetails>> byTask = new LinkedHashMap<>();
        for (SampleResult r : result.report().results()) {
            byTask.computeIfAbsent(r.taskId(), t -> new ArrayList<>())
                    .add(new SampleDetails(r, code.get(key(r.taskId(), r.sampleIndex()))));
        }
        List<ProblemDetails> rows = new ArrayList<>();
        for (Problem p : problems.problems()) {
            List<SampleDetails> samples = byTask.get(p.taskId());
            if (samples != null) {
                samples.sort((a, b) -> Integer.compare(a.result().sampleIndex(), b.result().sampleIndex()));
                rows.add(new ProblemDetails(p.taskId(), p.prompt(), p.code(""), result.report().problemErrors().get(p.taskId()),
                        samples));
            }
        }
        SortedMap<Integer, Double> before = result.beforeRepair() == null ? new TreeMap<>() : result.beforeRepair().passAtK();
        return new EvaluationDetails(subject, result.sandbox(), result.report(), passAtK, before, rows);
    }

    private static String key(String taskId, int index) {
        return taskId + "#" + index;
    }
}
