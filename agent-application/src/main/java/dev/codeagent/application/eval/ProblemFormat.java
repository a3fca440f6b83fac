package dev.codeagent.application.eval;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** The problem-file conventions {@code eval} understands: which fields a line has and how a program is assembled. */
public enum ProblemFormat {
    /** OpenAI HumanEval: task_id, prompt, canonical_solution, test, entry_point. */
    HUMANEVAL("humaneval"),
    /** Google MBPP: task_id, text, code, test_setup_code, test_list, challenge_test_list. */
    MBPP("mbpp"),
    /**
     * Input and output, as programming contests judge: task_id, prompt, language (any the sandbox runs; python when
     * absent), tests (a list of {input, output}), solution (optional). A completion is a whole program, run once per
     * test with its input on stdin; it passes when every output matches.
     */
    IO("io");

    private final String id;

    ProblemFormat(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** @throws IllegalArgumentException naming the known formats when {@code name} is none of them */
    public static ProblemFormat fromId(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (ProblemFormat f : values()) {
            if (f.id.equals(wanted)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown problem format '" + name + "'; known: " + knownIds());
    }

    public static String knownIds() {
        return Arrays.stream(values()).map(ProblemFormat::id).collect(Collectors.joining(", "));
    }

    /** The format whose distinctive fields a problem line has, or empty when it has none's. */
    public static Optional<ProblemFormat> detect(Collection<String> fields) {
        if (fields.contains("prompt") && fields.contains("test") && fields.contains("entry_point")) {
            return Optional.of(HUMANEVAL);
        }
        if (fields.contains("test_list") && (fields.contains("text") || fields.contains("code"))) {
            return Optional.of(MBPP);
        }
        if (fields.contains("tests") && fields.contains("prompt")) {
            return Optional.of(IO);
        }
        return Optional.empty();
    }
}
