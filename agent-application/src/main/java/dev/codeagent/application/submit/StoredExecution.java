package dev.codeagent.application.submit;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Verdict;
import java.time.Instant;
import java.util.Objects;

/**
 * A submitted execution as kept for its owner to collect: accepted, then running, then done with its result.
 *
 * @param id the id its owner asks for it by; a judgement's starts {@value #JUDGEMENT_PREFIX}, an execution's {@code ex_}
 * @param owner who submitted it ({@code key:NAME}); null for a caller who is no one in particular (auth off)
 * @param status where it is
 * @param acceptedAt when it was accepted
 * @param finishedAt when it ended; null until then
 * @param result how it went (a judgement's: the run that decided it); null until it is done
 * @param verdict a judgement's verdict once it is done; null for a plain execution and until then
 */
public record StoredExecution(String id, String owner, Status status, Instant acceptedAt, Instant finishedAt, Execution result,
        Verdict verdict) {

    /** How a submitted judgement's id starts (it is collected at {@code /v1/judgements}, not with the executions). */
    public static final String JUDGEMENT_PREFIX = "ju_";

    /** Where a submitted execution is. */
    public enum Status {
        /** Accepted, waiting for its turn at an execution place. */
        QUEUED,
        /** Running in the sandbox. */
        RUNNING,
        /** Ended: the result is there (whatever the program did, or the sandbox's own failure). */
        DONE
    }

    public StoredExecution {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(acceptedAt, "acceptedAt");
        if ((status == Status.DONE) != (result != null)) {
            throw new IllegalArgumentException("a submission has a result exactly when it is DONE");
        }
        if (verdict != null && status != Status.DONE) {
            throw new IllegalArgumentException("a submission has a verdict only when it is DONE");
        }
    }

    /** A plain execution's record (no verdict). */
    public StoredExecution(String id, String owner, Status status, Instant acceptedAt, Instant finishedAt, Execution result) {
        this(id, owner, status, acceptedAt, finishedAt, result, null);
    }

    /** Whether this is a judgement (given code judged) rather than a plain execution. */
    public boolean isJudgement() {
        return id.startsWith(JUDGEMENT_PREFIX);
    }

    public StoredExecution running() {
        return new StoredExecution(id, owner, Status.RUNNING, acceptedAt, null, null, null);
    }

    public StoredExecution done(Execution execution, Instant at) {
        return done(execution, null, at);
    }

    /** Done with its result and, for a judgement, its verdict. */
    public StoredExecution done(Execution execution, Verdict verdict, Instant at) {
        return new StoredExecution(id, owner, Status.DONE, acceptedAt, at, execution, verdict);
    }
}
