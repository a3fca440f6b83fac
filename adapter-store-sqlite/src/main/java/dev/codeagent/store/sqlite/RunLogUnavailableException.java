package dev.codeagent.store.sqlite;

import java.nio.file.Path;

/**
 * The run log's file cannot be used: it cannot be opened or created, it is not a database this
 * version understands, or a read or write on it failed. The message is one line naming the file and
 * the reason, fit to show a user.
 */
public class RunLogUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;

    public RunLogUnavailableException(Path file, String reason) {
        super("run log " + file + ": " + reason);
        this.file = file;
    }

    public RunLogUnavailableException(Path file, String reason, Throwable cause) {
        super("run log " + file + ": " + reason, cause);
        this.file = file;
    }

    /** The database file concerned. */
    public Path file() {
        return file;
    }
}
