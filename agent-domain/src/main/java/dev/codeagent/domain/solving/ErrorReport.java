package dev.codeagent.domain.solving;

import java.util.List;
import java.util.Objects;

/**
 * An error parsed out of a failed run, in terms of the code the model wrote.
 *
 * @param type the exception type ({@code ZeroDivisionError}, {@code SyntaxError})
 * @param message the exception's message, possibly empty
 * @param line the line in the generated code where it happened (the innermost frame inside the
 *     generated code), or null when no frame lies in it
 * @param sourceLine the text of that line of the generated code, or null with {@code line}
 * @param frames every frame, outermost first
 */
public record ErrorReport(String type, String message, Integer line, String sourceLine, List<Frame> frames) {

    public ErrorReport {
        Objects.requireNonNull(type, "type");
        message = message == null ? "" : message;
        frames = List.copyOf(frames);
    }

    /** {@code ZeroDivisionError: division by zero (line 3: return a / b)} */
    public String summary() {
        StringBuilder s = new StringBuilder(type);
        if (!message.isEmpty()) {
            s.append(": ").append(message);
        }
        if (line != null) {
            s.append(" (line ").append(line);
            if (sourceLine != null && !sourceLine.isBlank()) {
                s.append(": ").append(sourceLine.strip());
            }
            s.append(')');
        }
        return s.toString();
    }
}
