package dev.codeagent.domain.solving;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One task worked through attempts.
 *
 * @param id unique, opaque, URL-safe
 * @param task the task
 * @param status where it stands
 * @param attempts the attempts made so far, in order
 * @param startedAt when it started
 * @param endedAt when it reached a final status, or null while RUNNING
 * @param reason why it ended as it did where that needs saying (ERROR, CANCELLED), else null
 */
public record Run(
        String id,
        Task task,
        RunStatus status,
        List<Attempt> attempts,
        Instant startedAt,
        Instant endedAt,
        String reason) {

    public Run {
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("run id must not be blank");
        }
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(status, "status");
        attempts = List.copyOf(attempts);
        Objects.requireNonNull(startedAt, "startedAt");
        if (status.isFinal() && endedAt == null) {
            throw new IllegalArgumentException("a " + status + " run needs an end time");
        }
    }

    public static Run started(String id, Task task, Instant at) {
        return new Run(id, task, RunStatus.RUNNING, List.of(), at, null, null);
    }

    public Run withAttempt(Attempt attempt) {
        List<Attempt> more = new ArrayList<>(attempts);
        more.add(attempt);
        return new Run(id, task, status, more, startedAt, endedAt, reason);
    }

    public Run ended(RunStatus finalStatus, Instant at, String why) {
        if (!finalStatus.isFinal()) {
            throw new IllegalArgumentException("cannot end a run as " + finalStatus);
        }
        return new Run(id, task, finalStatus, attempts, startedAt, at, why);
    }

    /** The last attempt, or null when none was made. */
    public Attempt lastAttempt() {
        return attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
    }
}
