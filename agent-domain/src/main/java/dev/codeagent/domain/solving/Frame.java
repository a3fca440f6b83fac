package dev.codeagent.domain.solving;

import java.util.Objects;

/**
 * One frame of a traceback.
 *
 * @param file the file name as the interpreter printed it
 * @param line the line in that file as printed (1-based)
 * @param function the function name ({@code <module>} at top level)
 * @param sourceLine the stripped source text of that line, or null when the interpreter did not print it
 * @param codeLine the line in the generated code when the frame lies in it, else null
 */
public record Frame(String file, int line, String function, String sourceLine, Integer codeLine) {

    public Frame {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(function, "function");
    }

    public boolean inGeneratedCode() {
        return codeLine != null;
    }
}
