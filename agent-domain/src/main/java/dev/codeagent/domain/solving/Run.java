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
 * @param owner who the run belongs to, as the door that started it names its callers (an API key's
 *     {@code key:NAME}, a local user's {@code local:USER}); null when none was recorded (runs from
 *     before owners were, or started where callers are not told apart), and then only an operator
 *     sees it. Opaque here: the application decides who may see what
 */
public record Run(
        String id,
        Task task,
        RunStatus status,
        List<Attempt> attempts,
        Instant startedAt,
        Instant endedAt,
        String reason,
        String owner) {

    /** The longest owner name kept. */
    public static final int MAX_OWNER_LENGTH = 256;

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
        checkOwner(owner);
    }

    /**
     * Refuses an owner name no store or listing could keep as one line: blank, longer than
     * {@value #MAX_OWNER_LENGTH}, or with control characters. Null (no owner) passes.
     */
    public static String checkOwner(String owner) {
        if (owner != null && (owner.isBlank() || owner.length() > MAX_OWNER_LENGTH
                || owner.chars().anyMatch(Character::isISOControl))) {
            throw new IllegalArgumentException("a run's owner must be 1 to " + MAX_OWNER_LENGTH
                    + " characters without control characters, or none");
        }
        return owner;
    }

    /** A run that belongs to no one (only an operator sees it). */
    public Run(String id, Task task, RunStatus status, List<Attempt> attempts, Instant startedAt, Instant endedAt,
            String reason) {
        this(id, task, status, attempts, startedAt, endedAt, reason, null);
    }

    /** A new run that belongs to no one (only an operator sees it). */
    public static Run started(String id, Task task, Instant at) {
        return started(id, task, at, null);
    }

    /** A new run, RUNNING with no attempts, that belongs to {@code owner} (null: to no one). */
    public static Run started(String id, Task task, Instant at, String owner) {
        return new Run(id, task, RunStatus.RUNNING, List.of(), at, null, null, owner);
    }

    public Run withAttempt(Attempt attempt) {
        List<Attempt> more = new ArrayList<>(attempts);
        more.add(attempt);
        return new Run(id, task, status, more, startedAt, endedAt, reason, owner);
    }

    public Run ended(RunStatus finalStatus, Instant at, String why) {
        if (!finalStatus.isFinal()) {
            throw new IllegalArgumentException("cannot end a run as " + finalStatus);
        }
        return new Run(id, task, finalStatus, attempts, startedAt, at, why, owner);
    }

    /** The last attempt, or null when none was made. */
    public Attempt lastAttempt() {
        return attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
    }
}
