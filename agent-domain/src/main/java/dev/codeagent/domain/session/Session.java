package dev.codeagent.domain.session;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * A live interpreter (a Jupyter kernel) inside its own sandbox, keeping state from one cell to the next.
 * One session is one sandbox: never shared with another session, never reused after {@link #close()}.
 *
 * <p>A session runs one cell at a time; {@link #interrupt()} and {@link #close()} may be called from any
 * thread while a cell runs. The kernel is never restarted silently: a restart happens only on
 * {@link #restart()} or when a cell outlives its timeout, and the cell's result then says
 * {@link CellResult#stateLost()}.
 */
public interface Session extends AutoCloseable {

    /** An identifier chosen by the sandbox, unguessable, unique among the sandbox's sessions. */
    String id();

    /** The limits the session was opened with. */
    SessionLimits limits();

    /**
     * Runs one cell to its end or until a limit stops it. The cell's own failures (an exception, a timeout,
     * output past the caps, a dead kernel) are statuses of the result, not exceptions. A cell that reads
     * stdin gets end-of-file. A timeout interrupts the cell; if it has not stopped within a short grace the
     * kernel is restarted and the result is {@link CellStatus#TIMEOUT} with {@code stateLost}. A sandbox
     * that stops answering is killed: the result is {@link CellStatus#KERNEL_DIED} and the session ends.
     *
     * @throws SessionEndedException when the session has ended (see {@link #endReason()}) or its cell budget
     *     is spent
     * @throws IllegalStateException when another cell of this session is running
     */
    CellResult execute(Cell cell);

    /**
     * As {@link #execute(Cell)}, and hands each output to {@code onOutput} as the kernel produces it, in order,
     * within the same caps: a stream output holds only the text that arrived, so the pieces of one stream may be
     * cut differently from the merged ones in the result. {@code onOutput} runs on the calling thread before
     * this returns, must not block for long (the kernel's outputs wait meanwhile) and what it throws is
     * ignored. A session that cannot stream hands over the result's outputs at the end.
     */
    default CellResult execute(Cell cell, Consumer<CellOutput> onOutput) {
        CellResult r = execute(cell);
        for (CellOutput o : r.outputs()) {
            try {
                onOutput.accept(o);
            } catch (RuntimeException ignored) {
                // the caller's listener failing (a client gone) is not the cell's failure
            }
        }
        return r;
    }

    /** Interrupts the running cell (it ends {@link CellStatus#INTERRUPTED}); does nothing when none runs. */
    void interrupt();

    /**
     * Restarts the kernel: all state is lost and the execution count starts again at 1. Also the way back
     * from {@link CellStatus#KERNEL_DIED} while the session has not ended.
     *
     * @throws SessionEndedException when the session has ended
     * @throws IllegalStateException when a cell is running
     */
    void restart();

    /** How many times the kernel was restarted, on request or because a cell would not stop. */
    int restarts();

    /** Why the session ended (closed, idle, lifetime, sandbox lost), or empty while it is live. */
    Optional<String> endReason();

    /**
     * Writes a file into the session's working directory (where the kernel's cells run), creating its parent
     * directories, replacing a file of that name. Waits for no cell: refused while one runs.
     *
     * @param path relative to the working directory (see {@link SessionFiles#requireRelative})
     * @param content at most {@link SessionFiles#MAX_BYTES} bytes
     * @throws SessionFileException INVALID for a bad path or a symbolic link in it, TOO_LARGE for too many bytes
     *     or a full disk, FAILED when the sandbox could not write it
     * @throws IllegalStateException while a cell runs
     * @throws SessionEndedException when the session has ended
     */
    void writeFile(String path, byte[] content);

    /**
     * Reads a regular file of the session's working directory (one a cell wrote, say).
     *
     * @param path relative to the working directory (see {@link SessionFiles#requireRelative})
     * @param maxBytes the most the caller takes; at most {@link SessionFiles#MAX_BYTES}
     * @return the file's bytes
     * @throws SessionFileException INVALID for a bad path or a symbolic link, NOT_FOUND when there is no regular file
     *     there, TOO_LARGE when it holds more than {@code maxBytes}
     * @throws IllegalStateException while a cell runs
     * @throws SessionEndedException when the session has ended
     */
    byte[] readFile(String path, long maxBytes);

    /**
     * Ends the session: the kernel and every process it started are killed and every file it wrote is
     * removed before this returns. A cell in flight ends {@link CellStatus#KERNEL_DIED}. Idempotent.
     */
    @Override
    void close();
}
