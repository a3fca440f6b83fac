package dev.codeagent.application.submit;

import dev.codeagent.domain.execution.Execution;
import java.time.Instant;
import java.util.Objects;

/**
 * A submitted execution as kept for its owner to collect: accepted, then running, then done with its result.
 *
 * @param id the id its owner asks for it by
 * @param owner who submitted it ({@code key:NAME}); null for a caller who is no one in particular (auth off)
 * @param status where it is
 * @param acceptedAt when it was accepted
 * @param finishedAt when it ended; null until then
 * @param result how it went; null until it is done
 */
public record StoredExecution(String id, String owner, Status status, Instant acceptedAt, Instant finishedAt, Execution result) {

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
    }

    public StoredExecution running() {
        return new StoredExecution(id, owner, Status.RUNNING, acceptedAt, null, null);
    }

    public StoredExecution done(Execution execution, Instant at) {
        return new StoredExecution(id, owner, Status.DONE, acceptedAt, at, execution);
    }
}
