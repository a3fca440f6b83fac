package dev.codeagent.application.eval;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Verdict;
import java.util.List;
import java.util.Objects;

/**
 * The verdict on given code and the run that decided it: the analysis the agent loop feeds back to a model
 * ({@link dev.codeagent.application.solve.FeedbackPrompt} words it from these same parts) — the exception with its line and
 * source line, the failing assertion with the calls on it and what they returned, the first differing output line.
 *
 * @param verdict the judge's decision
 * @param execution the run that decided it (with IO cases: the first that failed, else the last)
 */
public record Judgement(Verdict verdict, Execution execution) {

    public Judgement {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(execution, "execution");
    }

    /** The calls into the code on the failing line of the tests and what they gave, as the judge saw them; else empty. */
    public List<String> calls() {
        return execution.judgement() == null ? List.of() : execution.judgement().calls();
    }
}
