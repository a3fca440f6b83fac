package dev.codeagent.domain.solving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TracebackParserTest {

    private final TracebackParser parser = new TracebackParser();
    private final Judge judge = new Judge();

    /** What each corpus case must parse to: type, message, line in the code, that line stripped, frame count. */
    private static final Map<String, Expected> EXPECTED = new HashMap<>();

    private record Expected(String type, String message, Integer line, String sourceLine, int frames) {
    }

    private static void expect(String name, String type, String message, Integer line, String source, int frames) {
        EXPECTED.put(name, new Expected(type, message, line, source, frames));
    }

    static {
        expect("assert_in_code", "AssertionError", "values must not be empty", 2,
                "assert values, \"values must not be empty\"", 3);
        expect("attribute_error_in_stdlib", "TypeError", "expected string or bytes-like object, got 'NoneType'", 5,
                "return re.findall(r\"\\w+\", text)", 3);
        expect("chained_direct_cause", "ConfigError", "bad config value", 9,
                "raise ConfigError(\"bad config value\") from e", 2);
        expect("chained_during_handling", "ValueError", "unknown item pear", 8,
                "raise ValueError(f\"unknown item {item}\")", 2);
        expect("custom_no_message", "Boom", "", 6, "raise Boom()", 2);
        expect("exception_group", "ExceptionGroup", "validation failed (2 sub-exceptions)", 4,
                "raise ExceptionGroup(\"validation failed\", errors)", 2);
        expect("exec_syntax_error", "SyntaxError", "invalid syntax", 5, "exec(src)", 3);
        expect("humaneval_0_wrong", "AssertionError", "", null, null, 2);
        expect("humaneval_assert", "AssertionError", "", null, null, 2);
        expect("humaneval_assert_message", "AssertionError", "2 is even", null, null, 2);
        expect("indentation_error", "IndentationError",
                "expected an indented block after function definition on line 1", 2, "return \"hello \" + name", 1);
        expect("index_error_in_code", "IndexError", "list index out of range", 3, "return ordered[-2]", 3);
        expect("json_decode_error", "json.decoder.JSONDecodeError",
                "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)", 5,
                "return json.loads(text)", 5);
        expect("listcomp_error", "TypeError", "object of type 'NoneType' has no len()", 2,
                "return [len(w) for w in words]", 3);
        expect("memory_error", "MemoryError", "", 2, "return [0] * (n * n * n)", 2);
        expect("multiline_message", "ValueError", "negative rows found:\n  row 1: -1\n  row 2: -5", 4,
                "raise ValueError(\"negative rows found:\\n  row 1: -1\\n  row 2: -5\")", 2);
        expect("name_error_in_tests", "NameError", "name 'sqaure' is not defined. Did you mean: 'square'?", null, null, 1);
        expect("nested_calls", "ValueError", "invalid literal for int() with base 10: 'x3'", 2, "return int(text)", 4);
        expect("recursion_error", "RecursionError", "maximum recursion depth exceeded", 2,
                "return countdown(n - 1)", 4);
        expect("stderr_noise", "IndexError", "list index out of range", 13, "return items[len(items)]", 2);
        expect("stdin_mode", "KeyError", "'b'", 5, "return values[key]", 2);
        expect("string_mode", "ZeroDivisionError", "division by zero", 2, "return a / b", 2);
        expect("syntax_error", "SyntaxError", "invalid syntax", 2, "return a +", 1);
        expect("syntax_error_in_tests", "SyntaxError", "invalid syntax", null, null, 1);
        expect("syntax_error_with_tests", "SyntaxError", "expected ':'", 1, "def add(a, b)", 1);
        expect("tab_error", "TabError", "inconsistent use of tabs and spaces in indentation", 3, "return n", 1);
        expect("type_error_call_from_tests", "TypeError", "scale() missing 1 required positional argument: 'factor'",
                null, null, 2);
        expect("unclosed_paren", "SyntaxError", "'(' was never closed", 2, "return sum(values", 1);
        expect("unexpected_indent", "IndentationError", "unexpected indent", 2, "y = 2", 1);
        expect("unicode_message", "RuntimeError", "keine Begrüßung für Zoë ✗", 2,
                "raise RuntimeError(f\"keine Begrüßung für {name} ✗\")", 2);
        expect("workdir_mode", "IndexError", "list index out of range", 2, "return items[0]", 2);
        expect("zero_division", "ZeroDivisionError", "division by zero", 2, "return a / b", 2);
    }

    static Stream<Arguments> corpus() {
        return Corpus.names().stream().map(n -> Arguments.of(Corpus.load(n)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corpus")
    void parsesEveryRealTracebackOfTheCorpus(Corpus.Case c) {
        Expected want = EXPECTED.get(c.name);
        assertThat(want).as("expectation for corpus case " + c.name).isNotNull();
        // read as an unjudged run's: the recorded program is the code, then (for a task with tests) the tests appended
        Submission submission = judge.prepare(c.task(), c.code, null);
        assertThat(c.program).as("the code starts the program that made the traceback").startsWith(submission.program().source());

        ErrorReport report = parser.parse(c.stderr, submission).orElseThrow();

        assertThat(report.type()).isEqualTo(want.type);
        assertThat(report.message()).isEqualTo(want.message);
        assertThat(report.line()).isEqualTo(want.line);
        assertThat(report.sourceLine() == null ? null : report.sourceLine().strip()).isEqualTo(want.sourceLine);
        assertThat(report.frames()).hasSize(want.frames);
        if (report.line() != null) {
            // the source line is the model's line, indentation and all
            assertThat(report.sourceLine()).isEqualTo(c.code.lines().toList().get(report.line() - 1));
        }
        for (Frame f : report.frames()) {
            if (f.codeLine() != null) {
                assertThat(f.codeLine()).isBetween(1, (int) c.code.lines().count());
            }
            if (f.sourceLine() != null) {
                assertThat(f.sourceLine()).as("marker lines are not source lines").doesNotMatch("[\\^~\\s]+");
            }
        }
    }

    @Test
    void everyExpectationHasItsCorpusCase() {
        assertThat(Corpus.names()).containsExactlyInAnyOrderElementsOf(EXPECTED.keySet());
    }

    @Test
    void framesCarryTheirFileFunctionAndSourceWithoutMarkers() {
        Corpus.Case c = Corpus.load("index_error_in_code");
        ErrorReport report = parser.parse(c.stderr, judge.prepare(c.task(), c.code)).orElseThrow();

        assertThat(report.frames()).extracting(Frame::function).containsExactly("<module>", "check", "second_largest");
        assertThat(report.frames()).extracting(Frame::line).containsExactly(10, 7, 3);
        assertThat(report.frames()).extracting(Frame::codeLine).containsExactly(null, null, 3);
        assertThat(report.frames()).extracting(Frame::sourceLine)
                .containsExactly("check(second_largest)", "assert candidate([5, 5]) == 5", "return ordered[-2]");
        assertThat(report.frames().get(0).file()).endsWith("/main.py");
        assertThat(report.summary()).isEqualTo("IndexError: list index out of range (line 3: return ordered[-2])");
    }

    @Test
    void chainedExceptionsReportTheFinalExceptionWithItsOwnFrames() {
        Corpus.Case c = Corpus.load("chained_during_handling");
        ErrorReport report = parser.parse(c.stderr, judge.prepare(c.task(), c.code)).orElseThrow();

        assertThat(report.frames()).extracting(Frame::function).containsExactly("<module>", "price");
        assertThat(report.frames()).extracting(Frame::codeLine).containsExactly(11, 8);
    }

    @Test
    void compileTimeSyntaxErrorBecomesOneFrameAtItsLocation() {
        Corpus.Case c = Corpus.load("syntax_error");
        ErrorReport report = parser.parse(c.stderr, judge.prepare(c.task(), c.code)).orElseThrow();

        assertThat(report.frames()).singleElement().satisfies(f -> {
            assertThat(f.line()).isEqualTo(2);
            assertThat(f.function()).isEqualTo("<module>");
            assertThat(f.sourceLine()).isEqualTo("return a +");
        });
    }

    @Test
    void codeStringFromExecIsNotTakenForTheMainFile() {
        Corpus.Case c = Corpus.load("exec_syntax_error");
        ErrorReport report = parser.parse(c.stderr, judge.prepare(c.task(), c.code)).orElseThrow();

        Frame location = report.frames().get(2);
        assertThat(location.file()).isEqualTo("<string>");
        assertThat(location.codeLine()).isNull();
    }

    @Test
    void recognisesTheMainFileUnderAnyPath() {
        String code = "def f():\n    return 1 / 0\n\nf()";
        Submission s = new Judge().prepare(Task.of("x"), code);
        for (String path : List.of("main.py", "/work/main.py", "/tmp/xyz/main.py", "/sandbox/run-1/main.py")) {
            String stderr = "Traceback (most recent call last):\n"
                    + "  File \"" + path + "\", line 4, in <module>\n    f()\n"
                    + "  File \"" + path + "\", line 2, in f\n    return 1 / 0\n           ~~^~~\n"
                    + "ZeroDivisionError: division by zero\n";
            assertThat(parser.parse(stderr, s).orElseThrow().line()).as(path).isEqualTo(2);
        }
        String other = "Traceback (most recent call last):\n  File \"/tmp/not_main.py\", line 2, in f\n    x\nValueError: v\n";
        assertThat(parser.parse(other, s).orElseThrow().line()).isNull();
    }

    @Test
    void mapsLinesBackWhenAHarnessStandsBeforeTheCode() {
        String code = "def f(x):\n    return x[3]";
        String source = "import sys\nsys.setrecursionlimit(100)\n" + code + "\n\nf([])\n";
        Submission s = new Submission(code, new Program(Language.PYTHON, source), 3, 2);
        String stderr = "Traceback (most recent call last):\n"
                + "  File \"/w/main.py\", line 6, in <module>\n    f([])\n"
                + "  File \"/w/main.py\", line 4, in f\n    return x[3]\n           ~^^^\n"
                + "IndexError: list index out of range\n";

        ErrorReport report = parser.parse(stderr, s).orElseThrow();

        assertThat(report.line()).isEqualTo(2);
        assertThat(report.sourceLine()).isEqualTo("    return x[3]");
        assertThat(report.frames()).extracting(Frame::codeLine).containsExactly(null, 2);
    }

    @Test
    void readsWindowsLineEnds() {
        Corpus.Case c = Corpus.load("zero_division");
        ErrorReport report = parser.parse(c.stderr.replace("\n", "\r\n"), judge.prepare(c.task(), c.code)).orElseThrow();

        assertThat(report.summary()).isEqualTo("ZeroDivisionError: division by zero (line 2: return a / b)");
    }

    @Test
    void findsNoTracebackWhereThereIsNone() {
        Submission s = judge.prepare(Task.of("x"), "print(1)");
        assertThat(parser.parse("", s)).isEmpty();
        assertThat(parser.parse(null, s)).isEmpty();
        assertThat(parser.parse("bad input: expected a number\n", s)).isEmpty();
        assertThat(parser.parse("Segmentation fault (core dumped)\n", s)).isEmpty();
    }

    @Test
    void aTracebackCutOffBeforeItsExceptionLineIsNoReport() {
        String cut = "Traceback (most recent call last):\n  File \"/w/main.py\", line 1, in <module>\n    print(1)\n";
        assertThat(parser.parse(cut, judge.prepare(Task.of("x"), "print(1)"))).isEmpty();
    }
}
