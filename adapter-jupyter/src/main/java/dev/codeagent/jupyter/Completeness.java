package dev.codeagent.jupyter;

/**
 * Whether a cell typed at a console is complete, for {@code is_complete_request}: the console sends the cell when
 * complete and otherwise opens a new line with the indent given. Judged on the text, as a console needs it at once
 * (the Python that would know runs inside the sandbox): open brackets, an open triple-quoted string, a trailing
 * backslash or a block header ending in a colon want more; an indented last line wants a blank line to end its
 * block; a cell magic ends at a blank line.
 */
final class Completeness {

    static final String COMPLETE = "complete";

    private Completeness() {
    }

    /** {@link #COMPLETE}, or the indent the next line should get (the cell is incomplete). */
    static String of(String code) {
        if (code.isBlank()) {
            return COMPLETE;
        }
        String[] lines = code.split("\n", -1);
        String last = lines[lines.length - 1];
        boolean endsBlank = last.isBlank() && lines.length > 1;
        if (code.stripLeading().startsWith("%%")) {
            return endsBlank ? COMPLETE : "";
        }
        int depth = 0;
        char quote = 0;
        boolean triple = false;
        for (int i = 0; i < code.length(); i++) {
            char c = code.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (triple && code.startsWith(String.valueOf(quote).repeat(3), i)) {
                    quote = 0;
                    i += 2;
                } else if (!triple && (c == quote || c == '\n')) {
                    quote = 0;
                }
            } else if (c == '#') {
                while (i + 1 < code.length() && code.charAt(i + 1) != '\n') {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                triple = code.startsWith(String.valueOf(c).repeat(3), i);
                if (triple) {
                    i += 2;
                }
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth = Math.max(0, depth - 1);
            }
        }
        if ((quote != 0 && triple) || depth > 0) {
            return "";
        }
        String lastCode = "";
        for (int i = lines.length - 1; i >= 0; i--) {
            String l = stripComment(lines[i]);
            if (!l.isBlank()) {
                lastCode = lines[i];
                break;
            }
        }
        String indent = lastCode.substring(0, lastCode.length() - lastCode.stripLeading().length());
        String stripped = stripComment(lastCode).stripTrailing();
        if (stripped.endsWith("\\")) {
            return indent;
        }
        if (stripped.endsWith(":") && !endsBlank) {
            return indent + "    ";
        }
        if (!indent.isEmpty() && !endsBlank) {
            return indent;
        }
        return COMPLETE;
    }

    /** The line without a trailing comment: cut at the first {@code #} outside a string on that line. */
    private static String stripComment(String line) {
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '#') {
                return line.substring(0, i);
            }
        }
        return line;
    }
}
