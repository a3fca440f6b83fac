package dev.codeagent.domain.execution;

import java.util.List;
import java.util.Objects;

/**
 * What the judge process decided about a judged execution: the one line {@code judge.py} writes to a channel
 * only the sandbox reads, never anything the candidate printed.
 *
 * @param outcome how the tests ended
 * @param message one line for people and the model: the failed assertion, the exception, why the program
 *     could not be judged; empty when the tests passed
 * @param testLine the line of the tests the failure stands on, or null
 * @param testSource that line's text, stripped, or null
 * @param calls up to three calls into the code made on that line and what they gave, as the judge saw them
 *     ({@code "f([1, 2]) returned None"}, {@code "f(0) raised ZeroDivisionError"})
 * @param error the exception the code raised (or the syntax error, or the tests' own error), or null
 */
public record JudgeReport(
        Outcome outcome, String message, Integer testLine, String testSource, List<String> calls, RaisedError error) {

    /** How the tests ended. Only {@link #PASSED} can make a verdict {@code ACCEPTED}. */
    public enum Outcome {
        /** every test ran to its end */
        PASSED("passed"),
        /** an assertion of the tests failed */
        ASSERTION("assertion"),
        /** the code raised an exception the tests did not expect (at import or in a call) */
        RAISED("raised"),
        /** the code returned a value that cannot cross as data and the tests compared it */
        NOT_DATA("not-data"),
        /** the program ended (exit, signal, crash) before the tests finished */
        ENDED("ended"),
        /**
         * the program broke the judging protocol, or its own values, passed back by the tests, cannot cross to it
         * again within the wire's caps
         */
        PROTOCOL("protocol"),
        /** the code does not compile */
        SYNTAX("syntax"),
        /** the tests raised an error of their own that is the code's doing (a missing name) */
        TESTS_ERROR("tests-error"),
        /**
         * the tests cannot load as written (they do not compile, or cannot import what they need before calling
         * the code): not the code's fault, and the same for every sample of the problem
         */
        TESTS("tests"),
        /**
         * the tests cannot go on with this sample: a call they make cannot cross to the code (a value that is not
         * data, or a value past a cap before the code has sent them any: past that, it is the program's
         * {@link #PROTOCOL}), or an import they reach after calling the code fails; not the code's fault, but which
         * call the tests reach depends on the code, so it is this sample's alone
         */
        UNJUDGEABLE("unjudgeable");

        private final String wire;

        Outcome(String wire) {
            this.wire = wire;
        }

        /**
         * Whether the judge decided this from replies it had read whole (a failed assertion, the code's exception, a
         * value that is not data, the tests' own error), not from the program's end: in one process nothing the
         * program did after that reply would have run, so the verdict stands over it (a limit it reached later, the
         * sandbox ending its run). The judge may send calls ahead of the tests, which the program computes while the
         * judge reads an earlier reply.
         */
        public boolean decidedFromReplies() {
            return this == ASSERTION || this == RAISED || this == NOT_DATA || this == TESTS_ERROR;
        }

        /** The name {@code judge.py} writes. */
        public String wireName() {
            return wire;
        }

        /** The outcome {@code judge.py} calls {@code name}. */
        public static Outcome fromWire(String name) {
            for (Outcome o : values()) {
                if (o.wire.equals(name)) {
                    return o;
                }
            }
            throw new IllegalArgumentException("unknown judge outcome: " + name);
        }
    }

    /**
     * An exception as reported: {@code frames} are in the code's file ({@code main.py}), outermost first,
     * and are the candidate's own account (it can only lie to itself).
     */
    public record RaisedError(String type, String message, List<ReportedFrame> frames) {
        public RaisedError {
            Objects.requireNonNull(type, "type");
            message = message == null ? "" : message;
            frames = List.copyOf(Objects.requireNonNull(frames, "frames"));
        }
    }

    /** One frame of a reported exception; {@code line} 1-based in {@code file}, {@code source} may be empty. */
    public record ReportedFrame(String file, int line, String function, String source) {
        public ReportedFrame {
            Objects.requireNonNull(file, "file");
            function = function == null ? "" : function;
            source = source == null ? "" : source;
        }
    }

    public JudgeReport {
        Objects.requireNonNull(outcome, "outcome");
        message = message == null ? "" : message;
        calls = List.copyOf(Objects.requireNonNull(calls, "calls"));
    }

    public boolean passed() {
        return outcome == Outcome.PASSED;
    }
}
