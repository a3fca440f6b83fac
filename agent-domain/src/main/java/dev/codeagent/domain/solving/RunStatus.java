package dev.codeagent.domain.solving;

/** Where a run stands. Every status but RUNNING is final. */
public enum RunStatus {
    RUNNING,
    /** An attempt was accepted. */
    SOLVED,
    /** The attempt budget was spent without an accepted attempt. */
    FAILED,
    /** The run could not go on (generator refused, sandbox down, process died); see its reason. */
    ERROR,
    /** Someone cancelled it. */
    CANCELLED;

    public boolean isFinal() {
        return this != RUNNING;
    }
}
