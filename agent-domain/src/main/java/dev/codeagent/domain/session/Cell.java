package dev.codeagent.domain.session;

import java.util.Objects;

/**
 * One piece of code to run in a {@link Session}, as a notebook cell: later cells see what earlier ones defined.
 *
 * @param source the code; at most {@link #MAX_SOURCE_CHARS} characters, may be blank (a no-op cell)
 */
public record Cell(String source) {

    /** The largest cell accepted: a cell is typed or generated code, not a data transfer. */
    public static final int MAX_SOURCE_CHARS = 1024 * 1024;

    public Cell {
        Objects.requireNonNull(source, "source");
        if (source.length() > MAX_SOURCE_CHARS) {
            throw new IllegalArgumentException("cell source must be at most " + MAX_SOURCE_CHARS + " characters, was "
                    + source.length());
        }
        if (source.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("cell source must not contain a NUL character");
        }
    }
}
