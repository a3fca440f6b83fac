package dev.codeagent.application.view;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Verdict;
import java.util.List;

/**
 * Given code judged, as every door shows it: the verdict with its analysis (the error with its line and source line, the
 * first output difference), the calls on the failing line of the tests and what they returned, and the run that decided
 * it.
 *
 * @param verdict the judge's decision
 * @param calls up to three calls into the code on the failing line of the tests, as the judge saw them ({@code "f(2)
 *     returned 5"}); empty otherwise
 * @param execution the run that decided it (with IO cases: the first that failed, else the last)
 */
public record JudgementView(VerdictView verdict, List<String> calls, ExecutionView execution) {

    public JudgementView {
        calls = List.copyOf(calls);
    }

    public static JudgementView of(Verdict verdict, Execution execution) {
        List<String> calls = execution == null || execution.judgement() == null ? List.of() : execution.judgement().calls();
        return new JudgementView(VerdictView.of(verdict), calls, ExecutionView.of(execution));
    }
}
