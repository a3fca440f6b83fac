package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.Program;
import java.util.Objects;

/**
 * The program the judge runs for a piece of generated code, and where that code lies in it, so that
 * line numbers in the program's errors can be mapped back to the code the model wrote.
 *
 * @param code the generated code as the model wrote it
 * @param program the program run: the code, with the task's tests appended when it has them
 * @param codeFirstLine the line of {@code program}'s main source on which the code's first line stands (1-based)
 * @param codeLineCount how many lines the code has
 * @param testsDoneMarker a secret line the program writes to stderr once its tests have all run, or null when
 *     there are no tests to finish; a clean exit without it means the code ended the program before the tests
 */
public record Submission(String code, Program program, int codeFirstLine, int codeLineCount, String testsDoneMarker) {

    public Submission(String code, Program program, int codeFirstLine, int codeLineCount) {
        this(code, program, codeFirstLine, codeLineCount, null);
    }

    public Submission {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(program, "program");
        if (codeFirstLine < 1 || codeLineCount < 0) {
            throw new IllegalArgumentException("bad code position " + codeFirstLine + "+" + codeLineCount);
        }
    }

    /** The line in the generated code for a line of the program's main source, or null when it lies outside. */
    public Integer codeLine(int programLine) {
        int l = programLine - codeFirstLine + 1;
        return l >= 1 && l <= codeLineCount ? l : null;
    }
}
