package dev.codeagent.application.submit;

import java.util.List;
import java.util.Optional;

/**
 * Where the server keeps the evaluations it was sent ({@link SubmitEvaluations}): each one's progress as it runs and its
 * report when done. Owners are not checked here; the use case shows a caller only what is theirs.
 */
public interface EvaluationLog {

    /** Records a new evaluation. @throws IllegalStateException when one with its id exists */
    void add(Evaluation evaluation);

    /**
     * Replaces the evaluation of the same id.
     *
     * @return false when there is none (it was forgotten meanwhile): nothing is written, so a forgotten one stays so
     */
    boolean update(Evaluation evaluation);

    Optional<Evaluation> find(String id);

    /** Evaluations of an owner (every owner's when null), newest first, at most {@code limit}. */
    List<Evaluation> list(String owner, int limit);

    /** Forgets an evaluation. @return whether there was one */
    boolean delete(String id);
}
