package dev.codeagent.application.eval;

import dev.codeagent.domain.execution.Language;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The problems of a problem file, in file order, and the lines that were skipped.
 *
 * @param format the file's format
 * @param problems the usable problems, unique by task id
 * @param badLines lines skipped, with why
 */
public record ProblemSet(ProblemFormat format, List<Problem> problems, List<BadLine> badLines) {

    public ProblemSet {
        Objects.requireNonNull(format, "format");
        problems = List.copyOf(problems);
        badLines = List.copyOf(badLines);
    }

    /**
     * Reads a HumanEval, MBPP or IO JSONL file. Lines that are not JSON objects, lack a field, or repeat
     * a task id are skipped and listed in {@link #badLines()}.
     *
     * @param format the format, or null to tell it from the fields of the first line that shows one
     * @throws EvaluationException when the file cannot be read, its format cannot be told, or no line is usable
     */
    public static ProblemSet read(Path file, ProblemFormat format) {
        JsonLines.Read read = JsonLines.read(file);
        return of(file.toString(), read.lines(), read.bad(), format, "name it with --format "
                + String.join("|", ProblemFormat.knownIds().split(", ")));
    }

    /**
     * The problems of a list of JSON objects in a problem file's line shape (what a server is sent): the same fields,
     * checks and detection as {@link #read}; an object that is not usable is in {@link #badLines()} numbered from 1.
     *
     * @param name what the list is called in messages ({@code problems})
     * @param format the format, or null to tell it from the fields
     * @throws EvaluationException when the format cannot be told or no object is usable
     */
    public static ProblemSet of(String name, List<JsonNode> objects, ProblemFormat format) {
        JsonLines.Read read = JsonLines.of(name, objects);
        return of(name, read.lines(), read.bad(), format, "name it with \"format\": " + ProblemFormat.knownIds());
    }

    private static ProblemSet of(String name, List<JsonLines.Line> lines, List<BadLine> unread, ProblemFormat format,
            String howToName) {
        ProblemFormat chosen = format;
        if (chosen == null) {
            for (JsonLines.Line line : lines) {
                Optional<ProblemFormat> f = ProblemFormat.detect(fieldNames(line.json()));
                if (f.isPresent()) {
                    chosen = f.get();
                    break;
                }
            }
            if (chosen == null) {
                throw new EvaluationException(name + ": cannot tell the problem format from the fields (want HumanEval's "
                        + "prompt/test/entry_point, MBPP's text/code/test_list or IO's prompt/tests); " + howToName);
            }
        }
        List<BadLine> bad = new ArrayList<>(unread);
        Map<String, Integer> seen = new LinkedHashMap<>();
        List<Problem> problems = new ArrayList<>();
        for (JsonLines.Line line : lines) {
            try {
                Problem p = parse(line.json(), chosen);
                Integer first = seen.putIfAbsent(p.taskId(), line.number());
                if (first != null) {
                    bad.add(new BadLine(name, line.number(), "duplicate task_id '" + p.taskId() + "' (first on line " + first + ")"));
                } else {
                    problems.add(p);
                }
            } catch (IllegalArgumentException e) {
                bad.add(new BadLine(name, line.number(), e.getMessage()));
            }
        }
        bad.sort((a, b) -> Integer.compare(a.line(), b.line()));
        if (problems.isEmpty()) {
            throw new EvaluationException(name + ": no usable " + chosen.id() + " problem"
                    + (bad.isEmpty() ? " (the file is empty)" : "; first bad line: " + bad.get(0)));
        }
        return new ProblemSet(chosen, problems, bad);
    }

    private static Problem parse(JsonNode json, ProblemFormat format) {
        String taskId = JsonLines.taskId(json);
        if (format == ProblemFormat.HUMANEVAL) {
            return new Problem(taskId, format, JsonLines.requiredString(json, "prompt"),
                    JsonLines.requiredString(json, "canonical_solution"), JsonLines.requiredString(json, "test"), List.of(),
                    JsonLines.requiredString(json, "entry_point"));
        }
        if (format == ProblemFormat.IO) {
            return io(taskId, json);
        }
        String setup = JsonLines.string(json, "test_setup_code");
        return new Problem(taskId, format, Objects.requireNonNullElse(JsonLines.string(json, "text"), ""),
                JsonLines.requiredString(json, "code"), setup, JsonLines.stringList(json, "test_list"), null);
    }

    private static Problem io(String taskId, JsonNode json) {
        String languageId = JsonLines.string(json, "language");
        Language language = languageId == null ? Language.PYTHON : Language.fromId(languageId).orElseThrow(
                () -> new IllegalArgumentException("unknown language '" + languageId + "'; known: " + Language.knownIds()));
        JsonNode tests = json.get("tests");
        if (tests == null || !tests.isArray() || tests.isEmpty()) {
            throw new IllegalArgumentException("'tests' must be a non-empty list of {\"input\": ..., \"output\": ...}");
        }
        List<Problem.IoCase> cases = new ArrayList<>();
        for (int i = 0; i < tests.size(); i++) {
            JsonNode t = tests.get(i);
            if (!t.isObject()) {
                throw new IllegalArgumentException("tests[" + i + "] must be an object with input and output");
            }
            String input = JsonLines.string(t, "input");
            String output = JsonLines.string(t, "output");
            if (output == null) {
                throw new IllegalArgumentException("tests[" + i + "]: missing 'output'");
            }
            cases.add(new Problem.IoCase(input == null ? "" : input, output));
        }
        return new Problem(taskId, ProblemFormat.IO, JsonLines.requiredString(json, "prompt"),
                Objects.requireNonNullElse(JsonLines.string(json, "solution"), ""), "", List.of(), null, language, cases);
    }

    private static List<String> fieldNames(JsonNode json) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    /**
     * One sample per problem: its reference solution (a self-test of the dataset and the sandbox); an IO problem
     * without a solution has none.
     */
    public List<Sample> referenceSamples() {
        List<Sample> samples = new ArrayList<>(problems.size());
        for (Problem p : problems) {
            if (p.format() != ProblemFormat.IO || !p.reference().isEmpty()) {
                samples.add(new Sample(p.taskId(), 0, p.reference()));
            }
        }
        return samples;
    }
}
