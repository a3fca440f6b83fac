package dev.codeagent.domain.session;

/** How a cell ended. */
public enum CellStatus {
    /** The cell ran to its end without raising and all its output was kept. */
    OK,
    /** The cell raised; the error is among its outputs as a {@link CellOutput.Error}. */
    ERROR,
    /**
     * The per-cell timeout struck: the cell was interrupted and, when the interrupt did not end it within a
     * short grace, the kernel was restarted ({@link CellResult#stateLost()} then says so).
     */
    TIMEOUT,
    /** The cell was stopped by {@link Session#interrupt()}; the kernel and its state survive. */
    INTERRUPTED,
    /**
     * The kernel (or the sandbox around it) died during the cell, or was already dead: state is lost and the
     * session needs {@link Session#restart()} or has ended (see {@link CellResult#message()}).
     */
    KERNEL_DIED,
    /** The cell ran to its end but produced more than the session's output caps allow; what fit is kept. */
    OUTPUT_TRUNCATED
}
