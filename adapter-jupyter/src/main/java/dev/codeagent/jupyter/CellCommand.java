package dev.codeagent.jupyter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a notebook cell asks the codeagent kernel for: Python for the session, or one of the kernel's own magics.
 * Only the kernel's magic names are taken; every other {@code %magic}, {@code %%magic} and {@code !command} is left
 * in the cell for the IPython kernel inside the sandbox, which knows them ({@code %timeit}, {@code %%time}, …).
 */
sealed interface CellCommand {

    /** The kernel's line magics. */
    Set<String> LINE_MAGICS = Set.of("sandbox", "limits", "runs");

    /** The kernel's cell magics. */
    Set<String> CELL_MAGICS = Set.of("solve", "tests");

    /** Python for the session, as typed. */
    record Code(String source) implements CellCommand {
    }

    /**
     * {@code %%solve [options]} with the task as the body.
     *
     * @param options {@code --name value} pairs, names without the dashes, in the order given
     */
    record Solve(Map<String, String> options, String task) implements CellCommand {
    }

    /** {@code %%tests}: the body holds tests for the next {@code %%solve}. */
    record Tests(String tests) implements CellCommand {
    }

    /** A cell of line magics only, e.g. {@code %limits timeout=5s}; each line's words after the name. */
    record LineMagics(List<Line> lines) implements CellCommand {
    }

    /** One line magic: its name without the percent sign, and its words. */
    record Line(String name, List<String> args) {
    }

    /** The options {@code %%solve} takes, with the one-line help shown for a wrong one. */
    Map<String, String> SOLVE_OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("attempts", "--attempts N (at most N generations)");
        o.put("language", "--language python|javascript|bash");
        o.put("expected-output", "--expected-output TEXT (the exact stdout that counts as right)");
        o.put("stdin", "--stdin TEXT (standard input for each attempt)");
        o.put("timeout", "--timeout 10s (wall time per attempt)");
        o.put("memory", "--memory 256m (memory per attempt)");
        return o;
    }

    /**
     * Reads a cell.
     *
     * @throws MagicException naming what is wrong with a magic of the kernel's
     */
    static CellCommand parse(String cell) {
        Objects.requireNonNull(cell, "cell");
        String[] lines = cell.split("\\R", -1);
        int first = 0;
        while (first < lines.length && lines[first].isBlank()) {
            first++;
        }
        if (first == lines.length) {
            return new Code(cell);
        }
        String head = lines[first].strip();
        String body = String.join("\n", java.util.Arrays.asList(lines).subList(first + 1, lines.length));
        if (head.startsWith("%%")) {
            List<String> words = words(head.substring(2));
            String name = words.isEmpty() ? "" : words.get(0);
            if (!CELL_MAGICS.contains(name)) {
                return new Code(cell);
            }
            List<String> args = words.subList(1, words.size());
            if (name.equals("tests")) {
                if (!args.isEmpty()) {
                    throw new MagicException("%%tests takes no options; the cell's body holds the tests");
                }
                if (body.isBlank()) {
                    throw new MagicException("%%tests: the cell holds no tests (write them below the %%tests line)");
                }
                return new Tests(body.strip() + "\n");
            }
            if (body.isBlank()) {
                throw new MagicException("%%solve: the cell holds no task (write it below the %%solve line)");
            }
            return new Solve(solveOptions(args), body.strip());
        }
        if (head.startsWith("%") && LINE_MAGICS.contains(magicName(head))) {
            List<Line> magics = new ArrayList<>();
            for (String l : lines) {
                String t = l.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                if (!t.startsWith("%") || !LINE_MAGICS.contains(magicName(t))) {
                    throw new MagicException("%" + magicName(head) + " goes in a cell of its own, with other line magics of"
                            + " the kernel's only (%sandbox, %limits, %runs); move '" + shorten(t) + "' to another cell");
                }
                List<String> w = words(t.substring(1));
                magics.add(new Line(w.get(0), List.copyOf(w.subList(1, w.size()))));
            }
            return new LineMagics(List.copyOf(magics));
        }
        return new Code(cell);
    }

    private static String magicName(String line) {
        String rest = line.substring(1);
        int end = 0;
        while (end < rest.length() && (Character.isLetterOrDigit(rest.charAt(end)) || rest.charAt(end) == '_')) {
            end++;
        }
        return rest.substring(0, end);
    }

    private static Map<String, String> solveOptions(List<String> args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("--")) {
                throw new MagicException("%%solve: unexpected '" + a + "'; options are " + String.join(", ", SOLVE_OPTIONS.values()));
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            name = name.toLowerCase(Locale.ROOT);
            if (!SOLVE_OPTIONS.containsKey(name)) {
                throw new MagicException("%%solve: unknown option --" + name + "; options are "
                        + String.join(", ", SOLVE_OPTIONS.values()));
            }
            if (value == null) {
                if (i + 1 >= args.size()) {
                    throw new MagicException("%%solve: --" + name + " needs a value: " + SOLVE_OPTIONS.get(name));
                }
                value = args.get(++i);
            }
            if (options.put(name, value) != null) {
                throw new MagicException("%%solve: --" + name + " is given twice");
            }
        }
        return options;
    }

    /** Splits a magic's line into words, shell-like: quotes group, a backslash escapes one character. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"' && i + 1 < line.length()) {
                    w.append(line.charAt(++i));
                } else {
                    w.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (w != null) {
                    words.add(w.toString());
                    w = null;
                }
            } else {
                if (w == null) {
                    w = new StringBuilder();
                }
                if (c == '"' || c == '\'') {
                    quote = c;
                } else if (c == '\\' && i + 1 < line.length()) {
                    w.append(line.charAt(++i));
                } else {
                    w.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new MagicException("unclosed " + quote + " in '" + shorten(line) + "'");
        }
        if (w != null) {
            words.add(w.toString());
        }
        return words;
    }

    private static String shorten(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "…" : s;
    }

    /** A magic of the kernel's used wrongly; the message is one line a notebook user can act on. */
    final class MagicException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        MagicException(String message) {
            super(message);
        }
    }
}
