package dev.codeagent.domain.session;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What running one cell gave.
 *
 * @param status how the cell ended
 * @param executionCount the kernel's execution count of this cell, 1 for the first cell after a start or a
 *     restart; 0 when the cell never ran (the kernel was dead)
 * @param duration wall time from sending the cell to its result, as the JVM measured it
 * @param stateLost whether the kernel's state (variables, imports) is gone after this cell: the kernel died
 *     or was restarted because the cell would not stop. Never true without being reported here.
 * @param outputs the outputs, in order, within the session's caps
 * @param message a one-line explanation for statuses other than {@link CellStatus#OK} and
 *     {@link CellStatus#ERROR} (what timed out, why the kernel is gone); empty otherwise
 */
public record CellResult(CellStatus status, int executionCount, Duration duration, boolean stateLost,
        List<CellOutput> outputs, String message) {

    public CellResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(message, "message");
        outputs = List.copyOf(outputs);
        if (executionCount < 0) {
            throw new IllegalArgumentException("executionCount must not be negative, was " + executionCount);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("duration must not be negative, was " + duration);
        }
        if (status == CellStatus.KERNEL_DIED && !stateLost) {
            throw new IllegalArgumentException("a dead kernel loses its state: stateLost must be true for KERNEL_DIED");
        }
        if (status == CellStatus.ERROR && outputs.stream().noneMatch(o -> o instanceof CellOutput.Error)) {
            throw new IllegalArgumentException("an ERROR result must carry the error among its outputs");
        }
    }

    /** The error the cell raised, if it did. */
    public java.util.Optional<CellOutput.Error> error() {
        return outputs.stream().filter(o -> o instanceof CellOutput.Error).map(o -> (CellOutput.Error) o).findFirst();
    }

    /** What a model is told about this cell: status, message and each output's text stand-in, never base64. */
    public String feedback() {
        StringBuilder s = new StringBuilder(status.name());
        if (executionCount > 0) {
            s.append(" [").append(executionCount).append(']');
        }
        if (stateLost) {
            s.append(" (state lost: earlier definitions are gone)");
        }
        if (!message.isEmpty()) {
            s.append(": ").append(message);
        }
        for (CellOutput o : outputs) {
            s.append('\n').append(o.standIn());
        }
        return s.toString();
    }
}
