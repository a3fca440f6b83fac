package dev.codeagent.domain.solving;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Python traceback out of a program's stderr and reports it in terms of the code the model
 * wrote.
 *
 * <p>What it understands (as CPython 3.8–3.12 prints it):
 * <ul>
 *   <li>the <em>last</em> traceback in stderr, so that output the program wrote before, tracebacks it
 *       printed itself, and the causes of a chained exception ("During handling of the above
 *       exception…", "The above exception was the direct cause…") are passed over: the report is the
 *       final exception with the frames of its own traceback;</li>
 *   <li>{@code File "…", line N, in fn} frames with their source lines, 3.11's {@code ^^^^}/{@code ~~^~~}
 *       marker lines, {@code [Previous line repeated N more times]};</li>
 *   <li>the exception line {@code Type: message}, dotted types, no message, messages over several lines;</li>
 *   <li>SyntaxError, IndentationError and TabError in their own format (a {@code File "…", line N} line
 *       without a function, the source line, a caret line), with or without a {@code Traceback} header
 *       before it (none when the main file itself fails to compile); the location becomes the last
 *       frame, with function {@code <module>};</li>
 *   <li>the outer exception of a 3.11 exception group.</li>
 * </ul>
 *
 * <p>A frame lies in the main file when its path ends with the program's main file name
 * ({@code main.py}, {@code /work/main.py}, {@code /tmp/x/main.py}); when no frame has such a path,
 * {@code <string>} and {@code <stdin>} frames count as the main file (the program was passed with
 * {@code -c} or on standard input). Main-file lines are mapped to the generated code with
 * {@link Submission#codeLine(int)}; the report's line and source line are those of the innermost frame
 * lying in the generated code, the source text taken from {@link Submission#code()}.
 *
 * <p>Stateless and thread-safe.
 */
public final class TracebackParser {

    private static final Pattern HEADER = Pattern.compile("^Traceback \\(most recent call last\\):\\s*$");
    private static final Pattern GROUP_HEADER =
            Pattern.compile("^( *)\\+ Exception Group Traceback \\(most recent call last\\):\\s*$");
    private static final Pattern FRAME = Pattern.compile("^  File \"(.*)\", line (\\d+)(?:, in (.+))?\\s*$");
    private static final Pattern LOCATION = Pattern.compile("^  File \"(.*)\", line (\\d+)\\s*$");
    private static final Pattern REPEATED = Pattern.compile("^\\s*\\[Previous line repeated \\d+ more times?\\]\\s*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*+[\\^~]++[\\s^~]*+$");
    private static final Pattern EXCEPTION = Pattern.compile("^([A-Za-z_][\\w.]*)(?::\\s?(.*))?$");
    private static final String MODULE = "<module>";

    /**
     * The last traceback in {@code stderr}, or empty when it holds none (or only a traceback cut off
     * before its exception line).
     */
    public Optional<ErrorReport> parse(String stderr, Submission submission) {
        Objects.requireNonNull(submission, "submission");
        if (stderr == null || stderr.isEmpty()) {
            return Optional.empty();
        }
        List<String> lines = stderr.lines().toList();
        int start = -1;
        String groupPrefix = null;
        for (int i = lines.size() - 1; i >= 0; i--) {
            String l = lines.get(i);
            if (HEADER.matcher(l).matches()) {
                start = i + 1;
                break;
            }
            Matcher g = GROUP_HEADER.matcher(l);
            if (g.matches()) {
                start = i + 1;
                groupPrefix = g.group(1) + "| ";
                break;
            }
        }
        List<String> body;
        if (start >= 0) {
            body = groupPrefix == null ? lines.subList(start, lines.size()) : unprefix(lines, start, groupPrefix);
        } else {
            // a compile-time syntax error of the main file has no header: it starts at its location line
            int loc = -1;
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (LOCATION.matcher(lines.get(i)).matches()) {
                    loc = i;
                    break;
                }
            }
            if (loc < 0) {
                return Optional.empty();
            }
            body = lines.subList(loc, lines.size());
        }
        return parseBody(body, submission);
    }

    /** The lines of an exception group's own traceback, without the group's {@code "  | "} prefix. */
    private static List<String> unprefix(List<String> lines, int start, String prefix) {
        List<String> out = new ArrayList<>();
        String bare = prefix.stripTrailing();
        for (int i = start; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith(prefix)) {
                out.add(l.substring(prefix.length()));
            } else if (l.equals(bare)) {
                out.add("");
            } else {
                break;
            }
        }
        return out;
    }

    private static Optional<ErrorReport> parseBody(List<String> body, Submission submission) {
        List<RawFrame> raw = new ArrayList<>();
        int i = 0;
        while (i < body.size()) {
            String l = body.get(i);
            Matcher f = FRAME.matcher(l);
            if (f.matches()) {
                String function = f.group(3) == null ? MODULE : f.group(3).strip();
                raw.add(new RawFrame(f.group(1), Integer.parseInt(f.group(2)), function));
                i++;
                continue;
            }
            if (REPEATED.matcher(l).matches()) {
                i++;
                continue;
            }
            if (l.startsWith("    ") && !raw.isEmpty()) {
                RawFrame last = raw.get(raw.size() - 1);
                if (last.source == null && !MARKER.matcher(l).matches() && !l.isBlank()) {
                    last.source = l.strip();
                }
                i++;
                continue;
            }
            if (l.isBlank() && raw.isEmpty()) {
                i++;
                continue;
            }
            break;
        }
        // the exception line; skip anything that cannot be one (stray output interleaved by a thread)
        while (i < body.size() && !EXCEPTION.matcher(body.get(i)).matches()) {
            i++;
        }
        if (i >= body.size()) {
            return Optional.empty();
        }
        Matcher e = EXCEPTION.matcher(body.get(i));
        if (!e.matches()) {
            return Optional.empty();
        }
        String type = e.group(1);
        StringBuilder message = new StringBuilder(e.group(2) == null ? "" : e.group(2).stripTrailing());
        int end = body.size();
        while (end > i + 1 && body.get(end - 1).isBlank()) {
            end--;
        }
        for (int j = i + 1; j < end; j++) {
            message.append('\n').append(body.get(j).stripTrailing());
        }

        String mainFile = submission.program().mainFileName();
        boolean pathsNameMain = raw.stream().anyMatch(r -> endsWithName(r.file, mainFile));
        List<Frame> frames = new ArrayList<>(raw.size());
        for (RawFrame r : raw) {
            Integer codeLine = isMainFile(r.file, mainFile, pathsNameMain) ? submission.codeLine(r.line) : null;
            frames.add(new Frame(r.file, r.line, r.function, r.source, codeLine));
        }
        Integer line = null;
        String sourceLine = null;
        for (int j = frames.size() - 1; j >= 0; j--) {
            Integer cl = frames.get(j).codeLine();
            if (cl != null) {
                line = cl;
                sourceLine = codeLineText(submission.code(), cl);
                break;
            }
        }
        return Optional.of(new ErrorReport(type, message.toString(), line, sourceLine, frames));
    }

    /**
     * Whether the frame lies in the program's main file: its path ends with the main file's name, or it
     * is {@code <string>}/{@code <stdin>} and no frame of the traceback has a path naming the main file.
     */
    static boolean inMainFile(Frame frame, List<Frame> frames, String mainFileName) {
        boolean pathsNameMain = frames.stream().anyMatch(f -> endsWithName(f.file(), mainFileName));
        return isMainFile(frame.file(), mainFileName, pathsNameMain);
    }

    private static boolean isMainFile(String file, String mainFileName, boolean pathsNameMain) {
        if (endsWithName(file, mainFileName)) {
            return true;
        }
        return !pathsNameMain && (file.equals("<string>") || file.equals("<stdin>"));
    }

    private static boolean endsWithName(String file, String name) {
        return file.equals(name) || file.endsWith("/" + name) || file.endsWith("\\" + name);
    }

    /** Line {@code n} (1-based) of the code, without its line terminator, or null past its end. */
    static String codeLineText(String code, int n) {
        List<String> lines = code.lines().toList();
        return n >= 1 && n <= lines.size() ? lines.get(n - 1) : null;
    }

    private static final class RawFrame {
        final String file;
        final int line;
        final String function;
        String source;

        RawFrame(String file, int line, String function) {
            this.file = file;
            this.line = line;
            this.function = function;
        }
    }
}
