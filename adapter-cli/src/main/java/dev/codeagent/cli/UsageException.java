package dev.codeagent.cli;

/**
 * The user asked for something that cannot be done as asked (a missing file, a bad value, an
 * unknown run). The message is one line fit to show as it is; the command exits with
 * {@link ExitStatus#USAGE} unless another status is given.
 */
public final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    public UsageException(String message) {
        this(message, ExitStatus.USAGE);
    }

    public UsageException(String message, int status) {
        super(message);
        this.status = status;
    }

    /** The exit status the command ends with. */
    public int status() {
        return status;
    }
}
