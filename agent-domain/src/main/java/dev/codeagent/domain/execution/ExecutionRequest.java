package dev.codeagent.domain.execution;

import java.util.List;
import java.util.Objects;

/**
 * One program to run once.
 *
 * @param program what to run
 * @param stdin the program's standard input; empty means the program reads end-of-file at once
 * @param args command-line arguments passed to the program after its file name
 * @param limits what the run may consume
 * @param judging tests a judge process runs against the program, or null to run it plainly; a judged program
 *     must be Python and its main file holds only the code under test
 * @param compileLimits what the compile stage of a compiled language may consume (its own time, memory and output,
 *     apart from the run's); null: the executor's configured compile limits, else {@link ResourceLimits#compileDefaults()}.
 *     Ignored for languages that run from source
 */
public record ExecutionRequest(Program program, String stdin, List<String> args, ResourceLimits limits, JudgeJob judging,
        ResourceLimits compileLimits) {

    public ExecutionRequest {
        Objects.requireNonNull(program, "program");
        stdin = stdin == null ? "" : stdin;
        args = List.copyOf(Objects.requireNonNull(args, "args"));
        Objects.requireNonNull(limits, "limits");
        for (String a : args) {
            if (a.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("argument contains a NUL byte");
            }
        }
        if (judging != null && program.language() != Language.PYTHON) {
            throw new IllegalArgumentException("only Python programs can be judged by the split judge, not "
                    + program.language().id());
        }
    }

    public ExecutionRequest(Program program, String stdin, List<String> args, ResourceLimits limits, JudgeJob judging) {
        this(program, stdin, args, limits, judging, null);
    }

    public ExecutionRequest(Program program, String stdin, List<String> args, ResourceLimits limits) {
        this(program, stdin, args, limits, null);
    }

    public ExecutionRequest(Program program, String stdin, ResourceLimits limits) {
        this(program, stdin, List.of(), limits);
    }

    public static ExecutionRequest of(Language language, String source) {
        return new ExecutionRequest(new Program(language, source), "", ResourceLimits.defaults());
    }

    public ExecutionRequest withLimits(ResourceLimits newLimits) {
        return new ExecutionRequest(program, stdin, args, newLimits, judging, compileLimits);
    }

    public ExecutionRequest withJudging(JudgeJob job) {
        return new ExecutionRequest(program, stdin, args, limits, job, compileLimits);
    }

    /** The compile stage's limits: the request's own, else {@code defaults}. */
    public ResourceLimits compileLimitsOr(ResourceLimits defaults) {
        return compileLimits != null ? compileLimits : defaults;
    }

    public ExecutionRequest withCompileLimits(ResourceLimits newLimits) {
        return new ExecutionRequest(program, stdin, args, limits, judging, newLimits);
    }

    public boolean judged() {
        return judging != null;
    }
}
