package dev.codeagent.application.view;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import java.time.Instant;

/**
 * A run in a listing ({@code codeagent runs --json}, {@code GET /v1/runs}): the first fields of {@link RunView}.
 *
 * @param reason why it ended so, or null
 * @param owner whose run it is ({@code key:NAME}, {@code local:USER}), or null for a run of no one's
 * @param endedAt null while it runs
 * @param placement where the last attempt was made (where the run ran, for a listing); null before any attempt or when
 *     not recorded
 */
public record RunSummaryView(
        String id,
        String status,
        String reason,
        String owner,
        String language,
        String prompt,
        String startedAt,
        String endedAt,
        int attemptCount,
        int maxAttempts,
        AttemptView.PlacementView placement) {

    public static RunSummaryView of(Run r) {
        Attempt last = r.lastAttempt();
        return new RunSummaryView(r.id(), r.status().name(), r.reason(), r.owner(), r.task().language().id(),
                r.task().prompt(), instant(r.startedAt()), instant(r.endedAt()), r.attempts().size(),
                r.task().maxAttempts(), last == null ? null : AttemptView.PlacementView.of(last.placement()));
    }

    static String instant(Instant i) {
        return i == null ? null : i.toString();
    }
}
