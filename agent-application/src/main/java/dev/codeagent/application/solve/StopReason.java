package dev.codeagent.application.solve;

import dev.codeagent.domain.solving.RunStatus;
import java.util.Objects;

/**
 * How a run stopped before its end is recorded: the final status and the reason the run log and the
 * run's last event carry.
 *
 * @param status CANCELLED or ERROR
 * @param reason one line saying why, never null
 */
public record StopReason(RunStatus status, String reason) {

    /** A run stopped on request, with no more said. */
    public static final StopReason CANCELLED = new StopReason(RunStatus.CANCELLED, "cancelled");

    public StopReason {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
        if (status != RunStatus.CANCELLED && status != RunStatus.ERROR) {
            throw new IllegalArgumentException("a stopped run ends CANCELLED or ERROR, not " + status);
        }
    }
}
