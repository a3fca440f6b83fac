package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.util.List;
import java.util.Objects;

/**
 * The program the judge runs for a piece of generated code, and where that code lies in it, so that
 * line numbers in the program's errors can be mapped back to the code the model wrote.
 *
 * @param code the generated code as the model wrote it
 * @param program the program run: the code alone (tests are never part of it: they run in the judge's process)
 * @param codeFirstLine the line of {@code program}'s main source on which the code's first line stands (1-based)
 * @param codeLineCount how many lines the code has
 * @param judging the tests the sandbox's judge runs against the program, or null when the task has none
 */
public record Submission(String code, Program program, int codeFirstLine, int codeLineCount, JudgeJob judging) {

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

    /** The request that runs this submission: judged when it has tests. */
    public ExecutionRequest request(String stdin, ResourceLimits limits) {
        return new ExecutionRequest(program, stdin, List.of(), limits, judging);
    }

    /** The line in the generated code for a line of the program's main source, or null when it lies outside. */
    public Integer codeLine(int programLine) {
        int l = programLine - codeFirstLine + 1;
        return l >= 1 && l <= codeLineCount ? l : null;
    }
}
