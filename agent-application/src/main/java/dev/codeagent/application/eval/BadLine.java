package dev.codeagent.application.eval;

import java.util.Objects;

/**
 * A line of an input file that was skipped, and why.
 *
 * @param file the file as the user named it
 * @param line the 1-based line number
 * @param reason what was wrong with it
 */
public record BadLine(String file, int line, String reason) {

    public BadLine {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(reason, "reason");
    }

    /** {@code samples.jsonl:12: missing 'completion'} */
    @Override
    public String toString() {
        return file + ":" + line + ": " + reason;
    }
}
