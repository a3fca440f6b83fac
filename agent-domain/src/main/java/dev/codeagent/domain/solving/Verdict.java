package dev.codeagent.domain.solving;

import java.util.Objects;

/**
 * The judge's decision on one attempt.
 *
 * <p>A record with a kind rather than a sealed family: every verdict carries the same optional
 * details (an error report, an output difference, a message), and the front doors render them
 * uniformly.
 *
 * @param kind what the judge decided
 * @param message one line saying why (the failing assertion, the limit hit); empty for ACCEPTED
 * @param error the parsed error where the program raised one, else null
 * @param difference the first output difference for WRONG_ANSWER against an expected output, else null
 */
public record Verdict(Kind kind, String message, ErrorReport error, OutputDifference difference) {

    /** The verdicts a judge can give. */
    public enum Kind {
        ACCEPTED,
        WRONG_ANSWER,
        SYNTAX_ERROR,
        /** A compiled language's code did not compile; the message names file, line, column and the compiler's words. */
        COMPILATION_ERROR,
        RUNTIME_ERROR,
        TIME_LIMIT_EXCEEDED,
        MEMORY_LIMIT_EXCEEDED,
        OUTPUT_LIMIT_EXCEEDED,
        POLICY_VIOLATION,
        /** The sandbox or the agent failed; not the code's fault. Also: the reply held no code. */
        INTERNAL_ERROR,
        /** The attempt was stopped before it was judged (Ctrl-C, a cancel): it says nothing about the code. */
        CANCELLED
    }

    public Verdict {
        Objects.requireNonNull(kind, "kind");
        message = message == null ? "" : message;
    }

    public static Verdict accepted() {
        return new Verdict(Kind.ACCEPTED, "", null, null);
    }

    public static Verdict of(Kind kind, String message) {
        return new Verdict(kind, message, null, null);
    }

    public boolean isAccepted() {
        return kind == Kind.ACCEPTED;
    }

    /**
     * The verdict in one line for a person watching: the kind, then what says most about it — an error located in
     * the model's code, else the output difference or the judge's message (a failing assertion of the tests has no
     * line in the model's code, but the message quotes it). Line breaks become spaces.
     */
    public String headline() {
        // a compiler's own words name file, line and column: better than the report rebuilt from them
        String detail = kind == Kind.COMPILATION_ERROR && !message.isBlank() ? message
                : error != null && error.line() != null ? error.summary()
                : difference != null ? difference.summary()
                : !message.isBlank() ? message
                : error != null ? error.summary()
                : "";
        String oneLine = detail.strip().replaceAll("\\s*\\R\\s*", " ");
        return oneLine.isEmpty() ? kind.name() : kind.name() + ' ' + oneLine;
    }
}
