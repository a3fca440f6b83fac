package dev.codeagent.domain.solving;

/**
 * Where the actual output first differs from the expected one.
 *
 * @param line the 1-based line number of the first difference
 * @param expected that line of the expected output, or null when the expected output had ended
 * @param actual that line of the actual output, or null when the actual output had ended
 */
public record OutputDifference(int line, String expected, String actual) {

    public String summary() {
        return "line " + line + ": expected " + quote(expected) + ", got " + quote(actual);
    }

    private static String quote(String s) {
        return s == null ? "end of output" : "\"" + s + "\"";
    }
}
