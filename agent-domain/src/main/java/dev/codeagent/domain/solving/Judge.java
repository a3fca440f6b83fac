package dev.codeagent.domain.solving;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Decides whether generated code solves its task.
 *
 * <p>{@link #prepare} builds what runs: the code alone as the program and, when the task has tests, a
 * {@link JudgeJob} the sandbox runs in a judge process of its own, out of the code's reach (another uid; the
 * code is called across a channel and its values cross as data). The tests are never part of the program, so
 * nothing the code can read, patch or print decides its verdict. {@link #judge} turns how that ran into a
 * {@link Verdict}:
 * <ul>
 *   <li>a limit the sandbox enforced gives the matching limit verdict (a Python {@code MemoryError}
 *       counts as the memory limit too), unless the judge had already failed the tests on a reply the program sent
 *       whole ({@link JudgeReport.Outcome#decidedFromReplies()}): one process would have stopped there; a policy refusal {@code POLICY_VIOLATION}; a failure of the
 *       sandbox itself {@code INTERNAL_ERROR}; a compiled language's failed compile stage {@code COMPILATION_ERROR}
 *       with the compiler's first error (file, line, column, its words) mapped to the code's line;</li>
 *   <li>with tests, only the judge's report counts: {@code ACCEPTED} only when it says the tests ran to their end
 *       and passed; a failed assertion or a value that cannot be compared {@code WRONG_ANSWER} (with the calls
 *       on the failing line and what they returned); an exception the code raised {@code RUNTIME_ERROR} with
 *       its frames in the code; code that does not compile {@code SYNTAX_ERROR}; no report at all
 *       {@code INTERNAL_ERROR}, never a pass;</li>
 *   <li>without tests, a failed Python run is read through its traceback: a SyntaxError, IndentationError or
 *       TabError in the program itself is {@code SYNTAX_ERROR}; an {@code AssertionError} raised outside any
 *       function of the code is {@code WRONG_ANSWER}; anything else is {@code RUNTIME_ERROR}; a failure
 *       without a traceback is {@code RUNTIME_ERROR} naming the exit status or signal;</li>
 *   <li>a clean run (and tests that passed) is {@code ACCEPTED}, unless the task has an expected output and
 *       stdout differs from it (trailing whitespace on each line and trailing blank lines ignored): then
 *       {@code WRONG_ANSWER} with the first differing line.</li>
 * </ul>
 * Tests are judged for Python only: other languages have no judge process, and tests appended to the program
 * would be decided by the code they test. Verdict messages are one line. Stateless and thread-safe.
 *
 * <p>One class of ~470 lines: one decision, read top to bottom in the order of the list above; what it reads is
 * parsed elsewhere ({@link TracebackParser}, {@code CompilerDiagnostics}, the judge's report).
 */
public final class Judge {

    private static final Set<String> SYNTAX_ERRORS = Set.of("SyntaxError", "IndentationError", "TabError");
    private static final int MAX_MESSAGE = 300;
    private static final int MAX_SHOWN_LINE = 120;
    private static final Map<Integer, String> SIGNALS = Map.ofEntries(
            Map.entry(1, "SIGHUP"), Map.entry(2, "SIGINT"), Map.entry(3, "SIGQUIT"), Map.entry(4, "SIGILL"),
            Map.entry(6, "SIGABRT"), Map.entry(7, "SIGBUS"), Map.entry(8, "SIGFPE"), Map.entry(9, "SIGKILL"),
            Map.entry(11, "SIGSEGV"), Map.entry(13, "SIGPIPE"), Map.entry(14, "SIGALRM"), Map.entry(15, "SIGTERM"),
            Map.entry(24, "SIGXCPU"), Map.entry(25, "SIGXFSZ"), Map.entry(31, "SIGSYS"));

    /** How a frame of the tests is named in an error report: they are not a file of the code. */
    public static final String TESTS_FILE = "<tests>";

    private final TracebackParser parser;

    public Judge() {
        this(new TracebackParser());
    }

    public Judge(TracebackParser parser) {
        this.parser = Objects.requireNonNull(parser, "parser");
    }

    /** Whether a task's tests can be judged for {@code language} (there is a judge process for it). */
    public static boolean judgesTests(Language language) {
        return language == Language.PYTHON;
    }

    /**
     * What runs to judge {@code code} for {@code task}: the code alone, judged by the task's tests when it has
     * them (no prelude: every name the tests use that the code defines is the code's, built-ins excepted).
     *
     * @throws IllegalArgumentException when the task has tests in a language they cannot be judged for, or the
     *     code cannot be a program (a NUL character)
     */
    public Submission prepare(Task task, String code) {
        Objects.requireNonNull(task, "task");
        return prepare(task, code, task.hasTests() ? JudgeJob.of(task.tests()) : null);
    }

    /**
     * What runs to judge {@code code} for {@code task} by {@code job} (a dataset's tests with a trusted prelude and
     * the entry points the code must define), or unjudged when {@code job} is null.
     *
     * @throws IllegalArgumentException as {@link #prepare(Task, String)}
     */
    public Submission prepare(Task task, String code, JudgeJob job) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(code, "code");
        if (job != null && !judgesTests(task.language())) {
            throw new IllegalArgumentException("tests can be judged for Python only, not "
                    + task.language().id() + ": give an expected output instead");
        }
        int lines = (int) code.lines().count();
        return new Submission(code, new Program(task.language(), code), 1, lines, job);
    }

    /**
     * What runs to judge {@code code} for {@code task} when it follows earlier code in a live session (an agent
     * working in a kernel: {@code solve --session}): the program first runs {@code prelude} — the earlier cells that
     * ran without error, in order — with its stdout discarded, so that every name the session holds is there and
     * an expected output is the code's alone; then the code, whose lines keep their numbers in error reports. The
     * judge never sees the session itself: a fresh sandbox rebuilds its state from the same code.
     *
     * @throws IllegalArgumentException as {@link #prepare(Task, String)}, or when the task is not Python (sessions
     *     are Python kernels)
     */
    public Submission prepareAfter(Task task, String prelude, String code) {
        Objects.requireNonNull(prelude, "prelude");
        Submission alone = prepare(task, code);
        if (prelude.isBlank()) {
            return alone;
        }
        if (task.language() != Language.PYTHON) {
            throw new IllegalArgumentException("code after a session's cells can be judged for Python only, not "
                    + task.language().id());
        }
        String head = "import contextlib as _codeagent_c, io as _codeagent_io\n"
                + "with _codeagent_c.redirect_stdout(_codeagent_io.StringIO()):\n"
                + "    exec(compile(" + pythonLiteral(prelude) + ", '<session>', 'exec'), globals())\n";
        int headLines = 3;
        return new Submission(code, new Program(task.language(), head + code), headLines + 1, alone.codeLineCount(),
                alone.judging());
    }

    /** A Python string literal holding {@code text} exactly. */
    static String pythonLiteral(String text) {
        StringBuilder b = new StringBuilder(text.length() + 16).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '"' -> b.append("\\\"");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** The verdict on {@code submission} of {@code task}, given how it ran. */
    public Verdict judge(Task task, Submission submission, Execution execution) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(submission, "submission");
        Objects.requireNonNull(execution, "execution");
        ResourceLimits limits = task.limits();
        JudgeReport report = execution.judgement();
        if (submission.judging() != null && report != null && report.outcome().decidedFromReplies()
                && (execution.outcome() == Outcome.TIME_LIMIT || execution.outcome() == Outcome.MEMORY_LIMIT
                        || execution.outcome() == Outcome.OUTPUT_LIMIT)) {
            // the tests failed on a reply the program had sent whole: a limit it reached afterwards (computing a
            // call the judge sent ahead, which one process would never have made) does not decide
            return judged(task, execution);
        }
        switch (execution.outcome()) {
            case TIME_LIMIT:
                return limitVerdict(Verdict.Kind.TIME_LIMIT_EXCEEDED, execution, submission,
                        "time limit exceeded (wall " + seconds(limits.wallTime().toMillis()) + ", CPU "
                                + seconds(limits.cpuTime().toMillis()) + ")");
            case MEMORY_LIMIT:
                return limitVerdict(Verdict.Kind.MEMORY_LIMIT_EXCEEDED, execution, submission,
                        "memory limit exceeded (" + bytes(limits.memoryBytes()) + ")");
            case OUTPUT_LIMIT:
                return limitVerdict(Verdict.Kind.OUTPUT_LIMIT_EXCEEDED, execution, submission,
                        "output limit exceeded (" + bytes(limits.maxOutputBytes()) + " per stream)");
            case COMPILATION_ERROR:
                return compilationError(submission, execution);
            case POLICY_VIOLATION:
                return Verdict.of(Verdict.Kind.POLICY_VIOLATION,
                        oneLine(orElse(execution.detail(), "refused by the code policy")));
            case SANDBOX_ERROR:
                return Verdict.of(Verdict.Kind.INTERNAL_ERROR,
                        oneLine("sandbox error: " + orElse(execution.detail(), "the sandbox failed to run the program")));
            case RUNTIME_ERROR:
            case OK:
            default:
                if (submission.judging() != null) {
                    return judged(task, execution);
                }
                if (execution.outcome() == Outcome.RUNTIME_ERROR
                        || execution.exitCode() != null && execution.exitCode() != 0) {
                    return failed(task, submission, execution);
                }
                return task.hasExpectedOutput() ? compareOutput(task.expectedOutput(), execution.stdout()) : Verdict.accepted();
        }
    }

    /**
     * A compiled program whose compile stage failed: the compiler's first error, in terms of the code (its file, line,
     * column and words, and the code's text on that line); a compile limit says which.
     */
    private static Verdict compilationError(Submission submission, Execution execution) {
        Execution stage = execution.compile();
        String stderr = stage == null ? "" : stage.stderr().text();
        boolean limit = stage != null && stage.outcome() != Outcome.OK && stage.outcome() != Outcome.RUNTIME_ERROR;
        Optional<CompilerDiagnostics.Diagnostic> first = limit ? Optional.empty() : CompilerDiagnostics.firstError(stderr);
        if (first.isEmpty()) {
            return Verdict.of(Verdict.Kind.COMPILATION_ERROR, oneLine(orElse(execution.detail(), "compilation failed")));
        }
        CompilerDiagnostics.Diagnostic d = first.get();
        // the main source is compiled under its own name or, in Java, its class's: any source of the language that is
        // not one of the extra files
        boolean inMain = d.file() != null && d.line() != null && !submission.program().files().containsKey(d.file())
                && Language.fromFileName(d.file()).filter(l -> l == submission.program().language()).isPresent();
        Integer codeLine = inMain ? submission.codeLine(d.line()) : null;
        String text = codeLine == null ? null : TracebackParser.codeLineText(submission.code(), codeLine);
        List<Frame> frames = d.file() == null || d.line() == null ? List.of()
                : List.of(new Frame(d.file(), d.line(), "<compile>", text == null ? null : text.strip(), codeLine));
        String message = d.column() == null ? d.message() : "column " + d.column() + ": " + d.message();
        ErrorReport error = new ErrorReport("CompilationError", message, codeLine, text == null ? null : text.strip(), frames);
        return new Verdict(Verdict.Kind.COMPILATION_ERROR, oneLine(d.summary()), error, null);
    }

    /** The verdict from the judge's own report: nothing the code printed or how it exited can make it a pass. */
    private static Verdict judged(Task task, Execution execution) {
        JudgeReport r = execution.judgement();
        if (r == null) {
            return Verdict.of(Verdict.Kind.INTERNAL_ERROR, oneLine("the judge gave no verdict (the program "
                    + ended(execution) + ")"));
        }
        switch (r.outcome()) {
            case PASSED:
                return task.hasExpectedOutput() ? compareOutput(task.expectedOutput(), execution.stdout()) : Verdict.accepted();
            case ASSERTION: {
                String source = r.testSource();
                String prefix = "failed assertion: " + (source == null ? "" : source.strip()) + " - ";
                String own = r.message().startsWith(prefix) ? r.message().substring(prefix.length()) : "";
                ErrorReport error = new ErrorReport("AssertionError", own, null, source == null ? null : source.strip(),
                        testFrames(r));
                return new Verdict(Verdict.Kind.WRONG_ANSWER, oneLine(r.message()), error, null);
            }
            case RAISED: {
                ErrorReport error = codeError(r);
                Verdict.Kind kind = isMemoryError(error.type()) ? Verdict.Kind.MEMORY_LIMIT_EXCEEDED : Verdict.Kind.RUNTIME_ERROR;
                return new Verdict(kind, oneLine(error.summary()), error, null);
            }
            case SYNTAX: {
                ErrorReport error = codeError(r);
                return new Verdict(Verdict.Kind.SYNTAX_ERROR, oneLine(error.summary()), error, null);
            }
            case NOT_DATA:
                return Verdict.of(Verdict.Kind.WRONG_ANSWER, oneLine(r.message()));
            case ENDED:
                // ending cleanly before the tests are done is a wrong answer; crashing is a runtime error
                boolean crashed = execution.signal() != null || execution.exitCode() != null && execution.exitCode() != 0;
                return Verdict.of(crashed ? Verdict.Kind.RUNTIME_ERROR : Verdict.Kind.WRONG_ANSWER,
                        oneLine(r.message() + (crashed ? " (it " + ended(execution) + ")" : "")));
            case TESTS_ERROR: {
                ErrorReport error = r.error() == null ? null : new ErrorReport(r.error().type(), r.error().message(), null,
                        r.testSource() == null ? null : r.testSource().strip(), testFrames(r));
                return new Verdict(Verdict.Kind.RUNTIME_ERROR, oneLine("the tests failed: " + r.message()), error, null);
            }
            case TESTS:
                return Verdict.of(Verdict.Kind.INTERNAL_ERROR, oneLine("the tests cannot be judged: " + r.message()));
            case UNJUDGEABLE:
                return Verdict.of(Verdict.Kind.INTERNAL_ERROR, oneLine("the tests cannot judge this program: " + r.message()));
            case PROTOCOL:
            default:
                return Verdict.of(Verdict.Kind.RUNTIME_ERROR, oneLine(r.message()));
        }
    }

    /** The tests' failing line as the one frame of an error: it is not in the code (no code line). */
    private static List<Frame> testFrames(JudgeReport r) {
        if (r.testLine() == null) {
            return List.of();
        }
        String source = r.testSource() == null ? null : r.testSource().strip();
        return List.of(new Frame(TESTS_FILE, r.testLine(), "<module>", source, null));
    }

    /** An exception of the code: candidate.py reports only the frames in the code's file, which is the program. */
    private static ErrorReport codeError(JudgeReport r) {
        if (r.error() == null) {
            return new ErrorReport("Exception", r.message(), null, null, List.of());
        }
        List<Frame> frames = r.error().frames().stream()
                .map(f -> new Frame(f.file(), f.line(), f.function(), f.source().isBlank() ? null : f.source().strip(),
                        f.line() >= 1 ? f.line() : null))
                .toList();
        Frame innermost = frames.isEmpty() ? null : frames.get(frames.size() - 1);
        return new ErrorReport(r.error().type(), r.error().message(), innermost == null ? null : innermost.codeLine(),
                innermost == null ? null : innermost.sourceLine(), frames);
    }

    /** {@code signal 9 (SIGKILL)}, the name where it is a known one. */
    private static String signal(int number) {
        String name = SIGNALS.get(number);
        return "signal " + number + (name == null ? "" : " (" + name + ")");
    }

    private static String ended(Execution execution) {
        if (execution.exitCode() != null) {
            return "exited with status " + execution.exitCode();
        }
        if (execution.signal() != null) {
            return "was killed by " + signal(execution.signal());
        }
        return "ended: " + orElse(execution.detail(), execution.outcome().name());
    }

    private Verdict limitVerdict(Verdict.Kind kind, Execution execution, Submission submission, String fallback) {
        // a traceback still helps here: a KeyboardInterrupt or MemoryError shows where the program was
        ErrorReport error = report(execution, submission).orElse(null);
        return new Verdict(kind, oneLine(orElse(execution.detail(), fallback)), error, null);
    }

    private Verdict failed(Task task, Submission submission, Execution execution) {
        Optional<ErrorReport> parsed = report(execution, submission);
        if (parsed.isEmpty()) {
            return withoutTraceback(submission, execution);
        }
        ErrorReport error = parsed.get();
        List<Frame> frames = error.frames();
        Frame innermost = frames.isEmpty() ? null : frames.get(frames.size() - 1);
        String mainFile = submission.program().mainFileName();
        boolean innermostInMain = innermost != null && TracebackParser.inMainFile(innermost, frames, mainFile);

        if (SYNTAX_ERRORS.contains(error.type()) && (innermost == null || innermostInMain)) {
            return new Verdict(Verdict.Kind.SYNTAX_ERROR, oneLine(error.summary()), error, null);
        }
        if (isMemoryError(error.type())) {
            return new Verdict(Verdict.Kind.MEMORY_LIMIT_EXCEEDED, oneLine(error.summary()), error, null);
        }
        boolean raisedInTests = innermostInMain && innermost.codeLine() == null;
        if (isAssertionError(error.type()) && (task.hasTests() || raisedInTests)) {
            return new Verdict(Verdict.Kind.WRONG_ANSWER, oneLine(assertionMessage(error, submission)), error, null);
        }
        return new Verdict(Verdict.Kind.RUNTIME_ERROR, oneLine(error.summary()), error, null);
    }

    private Optional<ErrorReport> report(Execution execution, Submission submission) {
        if (LanguageProfile.of(submission.program().language()).tracebacks() != LanguageProfile.Tracebacks.PYTHON) {
            return Optional.empty();
        }
        return parser.parse(execution.stderr().text(), submission);
    }

    private static Verdict withoutTraceback(Submission submission, Execution execution) {
        String lastLine = lastNonBlankLine(execution.stderr().text());
        // Python prints a bare "MemoryError" when it cannot even allocate the traceback
        if (lastLine != null && LanguageProfile.of(submission.program().language()).saysOutOfMemory(lastLine)) {
            return Verdict.of(Verdict.Kind.MEMORY_LIMIT_EXCEEDED, oneLine(lastLine));
        }
        String how;
        if (execution.exitCode() != null) {
            how = "exited with status " + execution.exitCode();
        } else if (execution.signal() != null) {
            how = "killed by " + signal(execution.signal());
        } else {
            how = "failed";
        }
        if (lastLine != null) {
            how += ": " + lastLine;
        }
        return Verdict.of(Verdict.Kind.RUNTIME_ERROR, oneLine(how));
    }

    /** {@code failed assertion: assert candidate(1) == 2 - message} */
    private static String assertionMessage(ErrorReport error, Submission submission) {
        String assertion = null;
        List<Frame> frames = error.frames();
        if (!frames.isEmpty()) {
            Frame innermost = frames.get(frames.size() - 1);
            assertion = innermost.sourceLine();
            if (assertion == null && TracebackParser.inMainFile(innermost, frames, submission.program().mainFileName())) {
                String text = TracebackParser.codeLineText(submission.program().source(), innermost.line());
                assertion = text == null ? null : text.strip();
            }
        }
        StringBuilder s = new StringBuilder("failed assertion");
        if (assertion != null && !assertion.isBlank()) {
            s.append(": ").append(assertion);
        } else if (error.line() != null) {
            s.append(" on line ").append(error.line());
        }
        if (!error.message().isEmpty()) {
            s.append(" - ").append(error.message());
        }
        return s.toString();
    }

    private static Verdict compareOutput(String expected, CapturedOutput stdout) {
        List<String> want = normalise(expected);
        List<String> got = normalise(stdout.text());
        int n = Math.max(want.size(), got.size());
        for (int i = 0; i < n; i++) {
            String w = i < want.size() ? want.get(i) : null;
            String g = i < got.size() ? got.get(i) : null;
            if (!Objects.equals(w, g)) {
                OutputDifference d = new OutputDifference(i + 1, w, g);
                String message = "wrong output at line " + d.line() + ": expected " + shown(w) + ", got " + shown(g)
                        + (stdout.truncated() ? " (output was cut)" : "");
                return new Verdict(Verdict.Kind.WRONG_ANSWER, message, null, d);
            }
        }
        return Verdict.accepted();
    }

    /** Lines without trailing whitespace, trailing blank lines dropped. */
    private static List<String> normalise(String text) {
        List<String> lines = text.lines().map(String::stripTrailing).toList();
        int end = lines.size();
        while (end > 0 && lines.get(end - 1).isEmpty()) {
            end--;
        }
        return lines.subList(0, end);
    }

    private static String shown(String line) {
        if (line == null) {
            return "end of output";
        }
        String s = line.length() > MAX_SHOWN_LINE ? line.substring(0, MAX_SHOWN_LINE) + "..." : line;
        return "\"" + s + "\"";
    }

    private static boolean isMemoryError(String type) {
        return type.equals("MemoryError");
    }

    private static boolean isAssertionError(String type) {
        return type.equals("AssertionError") || type.endsWith(".AssertionError");
    }

    private static String lastNonBlankLine(String text) {
        List<String> lines = text.lines().toList();
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (!lines.get(i).isBlank()) {
                return lines.get(i).strip();
            }
        }
        return null;
    }

    /** Whitespace runs holding line breaks become one space; long text is cut. */
    private static String oneLine(String s) {
        String head = s.length() > 4 * MAX_MESSAGE ? s.substring(0, 4 * MAX_MESSAGE) : s;
        String flat = head.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining(" "));
        return flat.length() > MAX_MESSAGE ? flat.substring(0, MAX_MESSAGE - 3) + "..." : flat;
    }

    private static String orElse(String s, String fallback) {
        return s == null || s.isBlank() ? fallback : s;
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? (millis / 1000) + "s" : millis + "ms";
    }

    private static String bytes(long b) {
        if (b % ResourceLimits.MIB == 0) {
            return (b / ResourceLimits.MIB) + " MiB";
        }
        if (b % 1024 == 0) {
            return (b / 1024) + " KiB";
        }
        return b + " bytes";
    }
}
