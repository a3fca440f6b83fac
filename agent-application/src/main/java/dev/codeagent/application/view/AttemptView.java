package dev.codeagent.application.view;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Placement;

/**
 * One attempt of a run.
 *
 * @param reply the model's whole reply; {@code code} is what was taken from it
 * @param execution what running the code did; null when it never ran (no code in the reply, cancelled first)
 * @param feedback what the agent told the model next, empty after the last attempt
 * @param placement where the attempt was made; null when not recorded
 */
public record AttemptView(
        int number,
        String reply,
        String code,
        ExecutionView execution,
        VerdictView verdict,
        String feedback,
        long generationTimeMs,
        long executionTimeMs,
        PlacementView placement) {

    public static AttemptView of(Attempt a) {
        return new AttemptView(a.number(), a.reply(), a.code(), ExecutionView.of(a.execution()),
                VerdictView.of(a.verdict()), a.feedback(), a.generationTime().toMillis(), a.executionTime().toMillis(),
                PlacementView.of(a.placement()));
    }

    /** The host, process and sandbox tier that made an attempt. */
    public record PlacementView(String host, long pid, String tier) {

        static PlacementView of(Placement p) {
            return p == null ? null : new PlacementView(p.host(), p.pid(), p.tier());
        }
    }
}
