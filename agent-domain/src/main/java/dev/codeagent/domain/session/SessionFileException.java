package dev.codeagent.domain.session;

import java.util.Objects;

/** A session's file could not be written or read; {@link #reason()} says why in a way a front door can map. */
public final class SessionFileException extends RuntimeException {

    /** Why a file operation failed. */
    public enum Reason {
        /** The path is not a plain relative path inside the session's working directory. */
        INVALID,
        /** No regular file at that path. */
        NOT_FOUND,
        /** The file is larger than {@link SessionFiles#MAX_BYTES} or the caller's cap, or the session's disk is full. */
        TOO_LARGE,
        /** The sandbox could not do it (I/O error); the message says what it said. */
        FAILED
    }

    private final Reason reason;

    public SessionFileException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
