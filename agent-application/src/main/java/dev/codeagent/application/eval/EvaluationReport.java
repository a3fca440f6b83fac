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
 * @param problems problems that had at least one sample
 * @param total samples checked
 * @param passed samples accepted
 * @param passAtK pass@k by k (1 always; 10 and 100 when every problem has that many samples)
 * @param verdicts how many samples got each verdict; only verdicts that occurred
 * @param results every sample's result, in input order
 * @param wallTimeMs time from the first execution started to the last judged
 * @param workers executions run at once
 */
public record EvaluationReport(
        int problems,
        int total,
        int passed,
        SortedMap<Integer, Double> passAtK,
        Map<Verdict.Kind, Integer> verdicts,
        List<SampleResult> results,
        long wallTimeMs,
        int workers) {

    public EvaluationReport {
        passAtK = Collections.unmodifiableSortedMap(new TreeMap<>(passAtK));
        EnumMap<Verdict.Kind, Integer> v = new EnumMap<>(Verdict.Kind.class);
        v.putAll(Objects.requireNonNull(verdicts, "verdicts"));
        verdicts = Collections.unmodifiableMap(v);
        results = List.copyOf(results);
    }

    /** The failed samples, in input order. */
    public List<SampleResult> failures() {
        return results.stream().filter(r -> !r.passed()).toList();
    }
}
