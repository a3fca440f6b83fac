package dev.codeagent.domain.solving;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the first error out of what a compiler printed: gcc and g++ ({@code main.c:3:5: error: ...}), Go
 * ({@code ./main.go:3:2: undefined: x}), javac ({@code Main.java:3: error: ...} with the column from its caret line)
 * and rustc ({@code error[E0425]: ...} then {@code --> main.rs:2:5}). Warnings and notes are skipped; an error that
 * names no place (a linker's {@code undefined reference}) is the first line that says error. Stateless.
 */
public final class CompilerDiagnostics {

    private static final Pattern GCC_OR_GO = Pattern.compile("^(?:\\./)?([^\\s:][^:]*):(\\d+):(\\d+): (.*)$");
    private static final Pattern JAVAC = Pattern.compile("^([^\\s:][^:]*\\.java):(\\d+): error: (.*)$");
    private static final Pattern RUSTC_ERROR = Pattern.compile("^error(?:\\[E\\d+])?: (.*)$");
    private static final Pattern RUSTC_PLACE = Pattern.compile("^\\s*--> (?:\\./)?(.+?):(\\d+):(\\d+)\\s*$");
    private static final Pattern CARET = Pattern.compile("^(\\s*)\\^\\s*$");
    private static final Pattern NOT_AN_ERROR = Pattern.compile("^(?:warning|note|in expansion of macro|required from).*");
    private static final Pattern SAYS_ERROR = Pattern.compile("(?i)\\berror\\b|undefined reference");

    /**
     * One compiler error.
     *
     * @param file the file it names, as the compiler printed it without a leading {@code ./}; null when it names none
     * @param line 1-based, or null
     * @param column 1-based, or null
     * @param message the compiler's words, without {@code error:}
     */
    public record Diagnostic(String file, Integer line, Integer column, String message) {

        /** {@code main.c:3:5: 'x' undeclared} */
        public String summary() {
            if (file == null) {
                return message;
            }
            return file + (line == null ? "" : ":" + line + (column == null ? "" : ":" + column)) + ": " + message;
        }
    }

    private CompilerDiagnostics() {
    }

    /** The first error in {@code stderr}; empty when nothing there says error. */
    public static Optional<Diagnostic> firstError(String stderr) {
        List<String> lines = stderr.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            Matcher rust = RUSTC_ERROR.matcher(l);
            if (rust.matches()) {
                for (int j = i + 1; j < Math.min(lines.size(), i + 4); j++) {
                    Matcher at = RUSTC_PLACE.matcher(lines.get(j));
                    if (at.matches()) {
                        return Optional.of(new Diagnostic(at.group(1), Integer.valueOf(at.group(2)),
                                Integer.valueOf(at.group(3)), rust.group(1).strip()));
                    }
                }
                return Optional.of(new Diagnostic(null, null, null, rust.group(1).strip()));
            }
            Matcher java = JAVAC.matcher(l);
            if (java.matches()) {
                Integer column = null;
                // javac prints the line's source, then a caret under the column
                if (i + 2 < lines.size()) {
                    Matcher caret = CARET.matcher(lines.get(i + 2));
                    if (caret.matches()) {
                        column = caret.group(1).length() + 1;
                    }
                }
                return Optional.of(new Diagnostic(java.group(1), Integer.valueOf(java.group(2)), column, java.group(3).strip()));
            }
            Matcher placed = GCC_OR_GO.matcher(l);
            if (placed.matches()) {
                String message = placed.group(4).strip();
                if (NOT_AN_ERROR.matcher(message).matches()) {
                    continue;
                }
                message = message.replaceFirst("^(?:fatal )?error: ", "");
                return Optional.of(new Diagnostic(placed.group(1), Integer.valueOf(placed.group(2)),
                        Integer.valueOf(placed.group(3)), message));
            }
        }
        for (String l : lines) {
            if (SAYS_ERROR.matcher(l).find() && !l.startsWith("warning")) {
                return Optional.of(new Diagnostic(null, null, null, l.strip()));
            }
        }
        return Optional.empty();
    }
}
