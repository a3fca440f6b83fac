package dev.codeagent.application.view;

import dev.codeagent.application.eval.EvaluationDetails;
import dev.codeagent.application.eval.SampleResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * An evaluation as its report page shows it ({@code codeagent eval --report}; the console's evaluation page): the JSON
 * that {@code console/report/report.js} renders. {@code schema} changes when a field's meaning does, so a page can
 * refuse what it cannot read.
 *
 * @param schema {@value #SCHEMA}
 * @param subject what was evaluated, in words
 * @param passAtK pass@k by k as the user was told it; null for a k past the fewest samples any problem has
 * @param passAtKBeforeRepair pass@k of the generator's first attempts when samples were repaired; else empty
 * @param verdicts samples per verdict, of the judged samples (not those of problems whose tests cannot load)
 * @param wallTimeMs from the first execution started to the last judged
 * @param workers executions run at once
 * @param problems the problems that had samples, in the problem file's order
 */
public record EvaluationReportView(
        int schema,
        String subject,
        String sandbox,
        int workers,
        int total,
        int passed,
        long wallTimeMs,
        Map<String, Double> passAtK,
        Map<String, Double> passAtKBeforeRepair,
        Map<String, Integer> verdicts,
        List<ProblemView> problems) {

    public static final int SCHEMA = 1;

    /**
     * A problem and its samples.
     *
     * @param prompt what the problem asks
     * @param codePrefix what each sample's checked program has before its code (HumanEval: the prompt): error lines
     *     count from the start of {@code codePrefix + code}
     * @param error why its tests cannot load (its samples were not judged), or null
     */
    public record ProblemView(String id, String prompt, String codePrefix, String error, List<SampleView> samples) {
    }

    /**
     * One sample.
     *
     * @param index 0-based among its problem's samples (shown 1-based)
     * @param verdict ACCEPTED, WRONG_ANSWER, …
     * @param message the verdict's one-line reason; empty when accepted
     * @param error the parsed error, or null
     * @param outcome how the execution ended, or null when it did not run
     * @param wallMs time to run and judge it
     * @param code the completion that was checked
     */
    public record SampleView(int index, String verdict, String message, VerdictView.ErrorView error, String outcome,
            long wallMs, String code) {
    }

    public static EvaluationReportView of(EvaluationDetails d) {
        Map<String, Integer> verdicts = new LinkedHashMap<>();
        d.summary().verdicts().forEach((kind, n) -> verdicts.put(kind.name(), n));
        List<ProblemView> problems = d.problems().stream()
                .map(p -> new ProblemView(p.taskId(), p.prompt(), p.codePrefix(), p.error(),
                        p.samples().stream().map(s -> sample(s.result(), s.completion())).toList()))
                .toList();
        return new EvaluationReportView(SCHEMA, d.subject(), d.sandbox(), d.summary().workers(), d.summary().total(),
                d.summary().passed(), d.summary().wallTimeMs(), byK(d.passAtK()), byK(d.passAtKBeforeRepair()), verdicts,
                problems);
    }

    private static SampleView sample(SampleResult r, String code) {
        return new SampleView(r.sampleIndex(), r.verdict().name(), r.message(), VerdictView.ErrorView.of(r.error()),
                r.outcome() == null ? null : r.outcome().name(), r.wallMs(), code);
    }

    /** JSON has no NaN: a pass@k that cannot be estimated is null. */
    private static Map<String, Double> byK(SortedMap<Integer, Double> passAtK) {
        Map<String, Double> out = new LinkedHashMap<>();
        passAtK.forEach((k, v) -> out.put(Integer.toString(k), v.isNaN() ? null : v));
        return out;
    }
}
