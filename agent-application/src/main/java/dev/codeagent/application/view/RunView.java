package dev.codeagent.application.view;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import java.util.List;

/**
 * A run in full ({@code codeagent solve --json}, {@code runs show --json}, {@code GET /v1/runs/{id}}): the fields
 * of {@link RunSummaryView} in the same order, then the task, the attempts, and the last attempt's code and output.
 *
 * @param code the last attempt's code (the answer when SOLVED), or null before any attempt
 * @param output the last attempt's stdout, or null when it did not run
 */
public record RunView(
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
        AttemptView.PlacementView placement,
        TaskView task,
        List<AttemptView> attempts,
        String code,
        String output) {

    public RunView {
        attempts = List.copyOf(attempts);
    }

    public static RunView of(Run r) {
        RunSummaryView s = RunSummaryView.of(r);
        Attempt last = r.lastAttempt();
        return new RunView(s.id(), s.status(), s.reason(), s.owner(), s.language(), s.prompt(), s.startedAt(),
                s.endedAt(), s.attemptCount(), s.maxAttempts(), s.placement(), TaskView.of(r.task()),
                r.attempts().stream().map(AttemptView::of).toList(),
                last == null ? null : last.code(),
                last == null || last.execution() == null ? null : last.execution().stdout().text());
    }
}
