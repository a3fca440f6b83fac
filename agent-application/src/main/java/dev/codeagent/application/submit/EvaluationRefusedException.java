package dev.codeagent.application.submit;

/**
 * An evaluation that is not taken: the field of the request at fault (or null when none is, e.g. too many waiting),
 * and what to do, in words a door shows as they are.
 */
public final class EvaluationRefusedException extends RuntimeException {

    private final String field;
    private final boolean busy;

    private EvaluationRefusedException(String field, String message, boolean busy) {
        super(message);
        this.field = field;
        this.busy = busy;
    }

    static EvaluationRefusedException invalid(String field, String message) {
        return new EvaluationRefusedException(field, message, false);
    }

    /** The caller keeps as many as it may: not a matter of waiting, of forgetting some. */
    static EvaluationRefusedException full(String message) {
        return new EvaluationRefusedException(null, message, false);
    }

    static EvaluationRefusedException busy(String message) {
        return new EvaluationRefusedException(null, message, true);
    }

    /** The request's field at fault ({@code problems}, {@code samples[3]}), or null. */
    public String field() {
        return field;
    }

    /** Whether the request was fine and the server is full: try again later. */
    public boolean busy() {
        return busy;
    }
}
