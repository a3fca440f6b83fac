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
 */
public record ExecutionRequest(Program program, String stdin, List<String> args, ResourceLimits limits) {

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
    }

    public ExecutionRequest(Program program, String stdin, ResourceLimits limits) {
        this(program, stdin, List.of(), limits);
    }

    public static ExecutionRequest of(Language language, String source) {
        return new ExecutionRequest(new Program(language, source), "", ResourceLimits.defaults());
    }

    public ExecutionRequest withLimits(ResourceLimits newLimits) {
        return new ExecutionRequest(program, stdin, args, newLimits);
    }
}
