package dev.codeagent.application.submit;

import dev.codeagent.application.run.Caller;
import dev.codeagent.application.view.EvaluationReportView;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * An evaluation known to the server: who asked, how far it has got, and when it is done what it found.
 *
 * @param id its id ({@code ev-…})
 * @param owner the caller it belongs to ({@code key:NAME}); null only when callers are not told apart (auth off)
 * @param subject what was evaluated, in words
 * @param status where it stands
 * @param createdAt when it was submitted
 * @param endedAt when it was done or failed; null before
 * @param problems problems submitted
 * @param samples samples submitted
 * @param done samples judged so far
 * @param passed samples accepted so far
 * @param error why it failed, when {@link Status#FAILED}; else null
 * @param report the report, when {@link Status#DONE}; else null: the view every door shows (the report page's JSON), which
 *     is also what a store keeps
 */
public record Evaluation(String id, String owner, String subject, Status status, Instant createdAt, Instant endedAt,
        int problems, int samples, int done, int passed, String error, EvaluationReportView report) {

    /** Where an evaluation stands. Cancelling one forgets it: there is no cancelled state to keep. */
    public enum Status {
        /** Waiting for its turn (evaluations run one or a few at a time). */
        QUEUED,
        RUNNING,
        DONE,
        /** Could not be evaluated at all (the sandbox failed); {@code error} says why. */
        FAILED
    }

    public Evaluation {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
        if (status == Status.DONE && report == null) {
            throw new IllegalArgumentException("a done evaluation has its report");
        }
    }

    /** Whether the caller may see (and forget) it: its owner, or an operator. */
    public boolean visibleTo(Caller caller) {
        return caller.operator() || (caller.owner() != null && caller.owner().equals(owner));
    }

    public boolean ended() {
        return status == Status.DONE || status == Status.FAILED;
    }

    /** pass@1 of the report, or empty before it is done. */
    public OptionalDouble passAt1() {
        if (report == null) {
            return OptionalDouble.empty();
        }
        Double v = report.passAtK().get("1");
        return v == null || v.isNaN() ? OptionalDouble.empty() : OptionalDouble.of(v);
    }

    Evaluation running() {
        return new Evaluation(id, owner, subject, Status.RUNNING, createdAt, null, problems, samples, 0, 0, null, null);
    }

    Evaluation progressed(int doneNow, int passedNow) {
        return new Evaluation(id, owner, subject, status, createdAt, null, problems, samples, doneNow, passedNow, null, null);
    }

    Evaluation finished(EvaluationReportView done, Instant at) {
        return new Evaluation(id, owner, subject, Status.DONE, createdAt, at, problems, samples, done.total(), done.passed(),
                null, done);
    }

    Evaluation failed(String why, Instant at) {
        return new Evaluation(id, owner, subject, Status.FAILED, createdAt, at, problems, samples, done, passed, why, null);
    }
}
