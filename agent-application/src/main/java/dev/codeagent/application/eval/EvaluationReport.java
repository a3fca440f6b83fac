package dev.codeagent.application.eval;

import dev.codeagent.domain.solving.Verdict;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What an evaluation found.
 *
 * @param problems problems that had at least one sample and could be judged (see {@code problemErrors})
 * @param total samples checked
 * @param passed samples accepted
 * @param passAtK pass@k by k (1 always; 10 and 100 when every problem has that many samples)
 * @param verdicts how many samples got each verdict; only verdicts that occurred
 * @param results every sample's result, in input order
 * @param wallTimeMs time from the first execution started to the last judged
 * @param workers executions run at once
 * @param problemErrors problems whose tests cannot load (a syntax error, a missing module), by task id, each with the
 *     judge's reason: the problem file's fault, not its samples', so their samples are not judged — they are in
 *     {@code total} and {@code results} (verdict INTERNAL_ERROR, "not judged: …") but in neither {@code passed}, the
 *     verdict counts nor pass@k (which is over the problems that could be judged)
 */
public record EvaluationReport(
        int problems,
        int total,
        int passed,
        SortedMap<Integer, Double> passAtK,
        Map<Verdict.Kind, Integer> verdicts,
        List<SampleResult> results,
        long wallTimeMs,
        int workers,
        Map<String, String> problemErrors) {

    public EvaluationReport {
        passAtK = Collections.unmodifiableSortedMap(new TreeMap<>(passAtK));
        EnumMap<Verdict.Kind, Integer> v = new EnumMap<>(Verdict.Kind.class);
        v.putAll(Objects.requireNonNull(verdicts, "verdicts"));
        verdicts = Collections.unmodifiableMap(v);
        results = List.copyOf(results);
        problemErrors = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(Objects.requireNonNull(problemErrors, "problemErrors")));
    }

    /** A report in which every problem could be judged. */
    public EvaluationReport(int problems, int total, int passed, SortedMap<Integer, Double> passAtK,
            Map<Verdict.Kind, Integer> verdicts, List<SampleResult> results, long wallTimeMs, int workers) {
        this(problems, total, passed, passAtK, verdicts, results, wallTimeMs, workers, Map.of());
    }

    /** Samples not judged because their problem's tests cannot load. */
    public int notJudged() {
        return (int) results.stream().filter(r -> problemErrors.containsKey(r.taskId())).count();
    }

    /** The failed samples, in input order. */
    public List<SampleResult> failures() {
        return results.stream().filter(r -> !r.passed() && !problemErrors.containsKey(r.taskId())).toList();
    }
}
