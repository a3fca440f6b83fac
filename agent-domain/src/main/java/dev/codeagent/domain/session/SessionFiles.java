package dev.codeagent.domain.session;

import java.util.regex.Pattern;

/** The rules for a session's file paths and sizes, the same in every tier and front door. */
public final class SessionFiles {

    /** The largest file a session's files may hand over either way, in bytes (8 MiB). */
    public static final long MAX_BYTES = 8L * 1024 * 1024;
    private static final int MAX_PATH = 1024;
    private static final Pattern SEGMENT = Pattern.compile("[^/\\\\\\x00-\\x1f]{1,255}");

    private SessionFiles() {
    }

    /**
     * A path relative to the session's working directory: segments separated by {@code /}, none empty, {@code .}
     * or {@code ..}, no backslash or control character, at most 1024 characters.
     *
     * @return the path as given
     * @throws SessionFileException with {@link SessionFileException.Reason#INVALID}, naming what is wrong
     */
    public static String requireRelative(String path) {
        if (path == null || path.isEmpty()) {
            throw new SessionFileException(SessionFileException.Reason.INVALID, "a file path is required");
        }
        if (path.length() > MAX_PATH) {
            throw new SessionFileException(SessionFileException.Reason.INVALID, "a file path may have at most " + MAX_PATH
                    + " characters, this one has " + path.length());
        }
        for (String segment : path.split("/", -1)) {
            if (segment.equals(".") || segment.equals("..") || !SEGMENT.matcher(segment).matches()) {
                throw new SessionFileException(SessionFileException.Reason.INVALID, "'" + path + "' is not a relative path "
                        + "inside the session's working directory (no leading /, no empty, '.' or '..' parts, no backslash or "
                        + "control characters)");
            }
        }
        return path;
    }
}
