package dev.codeagent.application.eval;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The samples of a samples file ({@code task_id} + {@code completion} per line, any number per task),
 * in file order, and the lines that were skipped.
 */
public record SampleSet(List<Sample> samples, List<BadLine> badLines) {

    public SampleSet {
        samples = List.copyOf(samples);
        badLines = List.copyOf(badLines);
    }

    /**
     * Reads a samples file against a problem set. Lines that are not JSON objects, lack a field, or
     * name a task the problems do not have are skipped and listed in {@link #badLines()}.
     *
     * @throws EvaluationException when the file cannot be read or no line is usable
     */
    public static SampleSet read(Path file, ProblemSet problems) {
        JsonLines.Read read = JsonLines.read(file);
        return of(file.toString(), read.lines(), read.bad(), problems);
    }

    /**
     * The samples of a list of JSON objects in a samples file's line shape ({@code task_id}, {@code completion}): what
     * a server is sent; an object that is not usable is in {@link #badLines()} numbered from 1.
     *
     * @throws EvaluationException when no object is usable
     */
    public static SampleSet of(String name, List<JsonNode> objects, ProblemSet problems) {
        JsonLines.Read read = JsonLines.of(name, objects);
        return of(name, read.lines(), read.bad(), problems);
    }

    private static SampleSet of(String name, List<JsonLines.Line> lines, List<BadLine> unread, ProblemSet problems) {
        Objects.requireNonNull(problems, "problems");
        JsonLines.Read read = new JsonLines.Read(lines, unread);
        Set<String> known = new HashSet<>();
        problems.problems().forEach(p -> known.add(p.taskId()));
        Map<String, Integer> perTask = new HashMap<>();
        List<Sample> samples = new ArrayList<>();
        List<BadLine> bad = new ArrayList<>(read.bad());
        for (JsonLines.Line line : read.lines()) {
            try {
                String taskId = JsonLines.taskId(line.json());
                String completion = JsonLines.requiredString(line.json(), "completion");
                if (!known.contains(taskId)) {
                    bad.add(new BadLine(name, line.number(), "unknown task_id '" + taskId + "'"));
                    continue;
                }
                int index = perTask.merge(taskId, 1, Integer::sum) - 1;
                samples.add(new Sample(taskId, index, completion));
            } catch (IllegalArgumentException e) {
                bad.add(new BadLine(name, line.number(), e.getMessage()));
            }
        }
        bad.sort((a, b) -> Integer.compare(a.line(), b.line()));
        if (samples.isEmpty()) {
            throw new EvaluationException(name + ": no usable sample"
                    + (bad.isEmpty() ? " (the file is empty)" : "; first bad line: " + bad.get(0)));
        }
        return new SampleSet(samples, bad);
    }
}
