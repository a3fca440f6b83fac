package dev.codeagent.application.solve;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Verdict;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Writes the message a code generator sees after a failed attempt: the verdict; the exception type
 * and message; the line of <em>its</em> code where it happened and that line's text; the failing
 * assertion or the first differing output line; the tails of stderr and stdout (each at most
 * {@value #TAIL_LINES} lines and {@value #TAIL_CHARS} characters, marked when cut); and an instruction
 * to answer with the complete corrected program in one fenced code block.
 *
 * <p>Deterministic (the same failure always gives the same text) and compact. Thread-safe.
 */
public final class FeedbackPrompt {

    static final int TAIL_LINES = 40;
    static final int TAIL_CHARS = 2_000;
    private static final int MAX_MESSAGE = 1_000;
    private static final int MAX_LINE = 200;

    private static final String INSTRUCTION =
            "Fix the program and reply with the complete corrected program in one fenced code block "
                    + "(```), with no other code blocks.";

    /**
     * The feedback on a failed attempt.
     *
     * @param code the code the model wrote (as extracted from its reply)
     * @param execution how it ran, or null when it did not run (refused before running)
     * @param verdict the judge's verdict; for an accepted one the feedback is empty
     */
    public String forFailure(String code, Execution execution, Verdict verdict) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(verdict, "verdict");
        if (verdict.isAccepted()) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        s.append("Your program failed: ").append(verdict.kind()).append(" - ").append(explain(verdict.kind())).append('\n');

        ErrorReport error = verdict.error();
        OutputDifference difference = verdict.difference();
        if (error == null && difference == null && !verdict.message().isBlank()) {
            s.append("What happened: ").append(verdict.message()).append('\n');
        }
        if (error != null) {
            describeError(s, code, verdict, error);
        }
        if (execution != null && execution.judgement() != null && !execution.judgement().calls().isEmpty()) {
            // a gain over tests appended to the program: the model sees what its code returned, not only the assert
            s.append(execution.judgement().calls().size() == 1 ? "The call: " : "The calls:\n");
            for (String call : execution.judgement().calls()) {
                s.append(execution.judgement().calls().size() == 1 ? "" : "  ").append(capLine(call)).append('\n');
            }
        }
        if (difference != null) {
            s.append("The output differs from the expected output at line ").append(difference.line()).append(":\n")
                    .append("  expected: ").append(shown(difference.expected())).append('\n')
                    .append("  actual:   ").append(shown(difference.actual())).append('\n');
        }
        String hint = hint(verdict.kind());
        if (!hint.isEmpty()) {
            s.append(hint).append('\n');
        }
        if (execution != null && execution.compile() != null && !execution.compile().ok()) {
            // a compiler's first errors are its best: the rest often follow from them
            appendCompilerOutput(s, execution.compile().stderr());
        }
        if (execution != null) {
            appendStream(s, "stderr", execution.stderr());
            appendStream(s, "stdout", execution.stdout());
        }
        s.append('\n').append(INSTRUCTION);
        return s.toString();
    }

    /** The feedback on a reply in which no code was found. */
    public String noCodeFound() {
        return "Your reply contained no code that could be run.\n\n"
                + "Reply with the complete program in one fenced code block that starts with ``` and the language name "
                + "(for example ```python), with no other code blocks.";
    }

    private static void describeError(StringBuilder s, String code, Verdict verdict, ErrorReport error) {
        List<Frame> frames = error.frames();
        Frame innermost = frames.isEmpty() ? null : frames.get(frames.size() - 1);
        boolean assertion = verdict.kind() == Verdict.Kind.WRONG_ANSWER;
        if (assertion) {
            String failing = innermost == null ? null : innermost.sourceLine();
            s.append("Failing assertion: ").append(failing != null ? capLine(failing) : verdict.message()).append('\n');
            if (!error.message().isEmpty()) {
                s.append("Assertion message: ").append(cap(error.message(), MAX_MESSAGE)).append('\n');
            }
        } else {
            s.append("Error: ").append(error.type());
            if (!error.message().isEmpty()) {
                s.append(": ").append(cap(error.message(), MAX_MESSAGE));
            }
            s.append('\n');
        }
        if (error.line() != null) {
            String text = lineOf(code, error.line());
            if (text == null) {
                text = error.sourceLine();
            }
            boolean beforeRunning = verdict.kind() == Verdict.Kind.SYNTAX_ERROR || verdict.kind() == Verdict.Kind.COMPILATION_ERROR;
            s.append(assertion ? "It failed at line " : beforeRunning ? "It is at line "
                    : "It was raised at line ").append(error.line()).append(" of your code");
            s.append(text == null || text.isBlank() ? ".\n" : ":\n    " + capLine(text.strip()) + "\n");
            List<Frame> path = frames.stream().filter(Frame::inGeneratedCode).collect(Collectors.toList());
            if (path.size() > 1) {
                s.append("Call path through your code: ")
                        .append(path.stream().map(f -> "line " + f.codeLine() + " (" + f.function() + ")")
                                .collect(Collectors.joining(" -> ")))
                        .append('\n');
            }
        } else if (!assertion && innermost != null && innermost.sourceLine() != null) {
            s.append("It was raised outside your code, at: ").append(capLine(innermost.sourceLine())).append('\n');
        }
    }

    /** The first lines of what the compiler said, as {@link #appendStream} shows a stream's last ones. */
    private static void appendCompilerOutput(StringBuilder s, CapturedOutput output) {
        List<String> lines = output.text().stripTrailing().lines().dropWhile(String::isBlank).collect(Collectors.toList());
        if (lines.isEmpty()) {
            return;
        }
        boolean cut = lines.size() > TAIL_LINES;
        String head = String.join("\n", cut ? lines.subList(0, TAIL_LINES) : lines);
        if (head.length() > TAIL_CHARS) {
            int nl = head.lastIndexOf('\n', TAIL_CHARS);
            head = head.substring(0, nl > 0 ? nl : TAIL_CHARS);
            cut = true;
        }
        String fence = head.contains("```") ? "~~~~" : "```";
        s.append("\ncompiler output").append(cut || output.truncated() ? " (first part only)" : "").append(":\n")
                .append(fence).append('\n').append(head).append('\n').append(fence).append('\n');
    }

    private static void appendStream(StringBuilder s, String name, CapturedOutput output) {
        String text = output.text();
        if (text.isBlank()) {
            return;
        }
        // drop surrounding blank lines but keep indentation: a caret line must stay under its column
        List<String> lines = text.stripTrailing().lines().dropWhile(String::isBlank).collect(Collectors.toList());
        boolean cut = false;
        if (lines.size() > TAIL_LINES) {
            lines = lines.subList(lines.size() - TAIL_LINES, lines.size());
            cut = true;
        }
        String tail = String.join("\n", lines);
        if (tail.length() > TAIL_CHARS) {
            tail = tail.substring(tail.length() - TAIL_CHARS);
            int nl = tail.indexOf('\n');
            if (nl >= 0 && nl < tail.length() - 1) {
                tail = tail.substring(nl + 1);
            }
            cut = true;
        }
        s.append('\n').append(name);
        if (cut || output.truncated()) {
            s.append(" (last part only");
            if (output.truncated()) {
                s.append("; the sandbox kept only part of it");
            }
            s.append(')');
        }
        String fence = tail.contains("```") ? "~~~~" : "```";
        s.append(":\n").append(fence).append('\n').append(tail).append('\n').append(fence).append('\n');
    }

    private static String explain(Verdict.Kind kind) {
        switch (kind) {
            case WRONG_ANSWER:
                return "it ran, but gave a wrong result.";
            case SYNTAX_ERROR:
                return "it is not valid code.";
            case COMPILATION_ERROR:
                return "it does not compile.";
            case RUNTIME_ERROR:
                return "it stopped with an error.";
            case TIME_LIMIT_EXCEEDED:
                return "it ran out of time.";
            case MEMORY_LIMIT_EXCEEDED:
                return "it used too much memory.";
            case OUTPUT_LIMIT_EXCEEDED:
                return "it printed too much output.";
            case POLICY_VIOLATION:
                return "it uses something that is not allowed here.";
            case INTERNAL_ERROR:
            default:
                return "it could not be run.";
        }
    }

    private static String hint(Verdict.Kind kind) {
        switch (kind) {
            case TIME_LIMIT_EXCEEDED:
                return "Make sure it terminates (no endless loop, no waiting for input it will not get) "
                        + "and is fast enough.";
            case MEMORY_LIMIT_EXCEEDED:
                return "Use less memory: avoid building huge lists or strings.";
            case OUTPUT_LIMIT_EXCEEDED:
                return "Print only what the task asks for.";
            case POLICY_VIOLATION:
                return "Solve the task without it.";
            default:
                return "";
        }
    }

    private static String lineOf(String code, int n) {
        List<String> lines = code.lines().collect(Collectors.toList());
        return n >= 1 && n <= lines.size() ? lines.get(n - 1) : null;
    }

    private static String shown(String line) {
        return line == null ? "(end of output)" : "\"" + capLine(line) + "\"";
    }

    private static String capLine(String s) {
        return cap(s, MAX_LINE);
    }

    private static String cap(String s, int max) {
        return s.length() > max ? s.substring(0, max) + "... (cut)" : s;
    }
}
