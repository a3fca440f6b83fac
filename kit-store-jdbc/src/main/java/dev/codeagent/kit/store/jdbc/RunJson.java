package dev.codeagent.kit.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Placement;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The stored JSON form of the domain records kept in the database, field by field.
 *
 * <p>Shared by the SQL stores (SQLite, PostgreSQL), so a run has one stored form whichever keeps it.
 * The names here are the stored schema, not the domain's: renaming a record component changes no
 * stored row, and a golden file test ({@code RunJsonTest} in adapter-store-sqlite) fails when a change here would. Rows
 * written before this mapping was explicit (by reflection over the records) have the same form:
 * component names as keys, every key present with null for none, enums by constant name, durations
 * as ISO-8601 text (which keeps nanoseconds). Keys this version does not know are ignored, so a row
 * a newer version wrote with more keys is still read.
 *
 * <p>One class of ~550 lines: it is one schema, each record's writer and reader in one file so that a stored key is
 * changed in one place, and the golden file test checks the whole form at once.
 */
public final class RunJson {

    private final ObjectMapper mapper = new ObjectMapper();

    public String write(Task task) {
        return text(task(task));
    }

    public String write(Attempt attempt) {
        return text(attempt(attempt));
    }

    /** A request queued for another process to run (the execution queue's stored form). */
    public String write(ExecutionRequest request) {
        return text(request(request));
    }

    /** An execution's result as another process reads it back. */
    public String write(Execution execution) {
        return text(execution(execution));
    }

    /**
     * A judged submission's result: the execution that decided it with its verdict beside it, under the key
     * {@code verdict} ({@link #verdictBeside} reads it back; {@link #execution(String)} reads the execution and ignores it,
     * so a plain execution's column holds both forms).
     */
    public String write(Execution execution, Verdict verdict) {
        ObjectNode n = execution(execution);
        if (verdict != null) {
            n.set("verdict", verdict(verdict));
        }
        return text(n);
    }

    /**
     * The verdict {@link #write(Execution, Verdict)} kept beside an execution, or null when there is none.
     *
     * @throws JsonProcessingException when the text is not JSON
     * @throws IllegalArgumentException when a field is missing or invalid, naming it
     */
    public Verdict verdictBeside(String json) throws JsonProcessingException {
        Node n = new Node(mapper.readTree(json), "execution");
        Node verdict = n.optionalObject("verdict");
        return verdict == null ? null : verdict(verdict);
    }

    /**
     * @throws JsonProcessingException when the text is not JSON
     * @throws IllegalArgumentException when a field is missing or invalid, naming it
     */
    public ExecutionRequest request(String json) throws JsonProcessingException {
        return request(new Node(mapper.readTree(json), "request"));
    }

    /**
     * @throws JsonProcessingException when the text is not JSON
     * @throws IllegalArgumentException when a field is missing or invalid, naming it
     */
    public Execution execution(String json) throws JsonProcessingException {
        return execution(new Node(mapper.readTree(json), "execution"));
    }

    /**
     * @throws JsonProcessingException when the text is not JSON
     * @throws IllegalArgumentException when a field is missing or invalid, naming it
     */
    public Task task(String json) throws JsonProcessingException {
        return task(new Node(mapper.readTree(json), "task"));
    }

    /**
     * @throws JsonProcessingException when the text is not JSON
     * @throws IllegalArgumentException when a field is missing or invalid, naming it
     */
    public Attempt attempt(String json) throws JsonProcessingException {
        return attempt(new Node(mapper.readTree(json), "attempt"));
    }

    private String text(ObjectNode node) {
        try {
            return mapper.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            // a tree of strings and numbers always serializes: failing here is a bug
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    // ---- domain to stored JSON

    private ObjectNode task(Task t) {
        ObjectNode n = mapper.createObjectNode();
        n.put("prompt", t.prompt());
        n.put("language", t.language().name());
        n.put("tests", t.tests());
        n.put("expectedOutput", t.expectedOutput());
        n.put("stdin", t.stdin());
        n.set("limits", limits(t.limits()));
        n.put("maxAttempts", t.maxAttempts());
        return n;
    }

    private ObjectNode limits(ResourceLimits l) {
        ObjectNode n = mapper.createObjectNode();
        n.put("wallTime", l.wallTime().toString());
        n.put("cpuTime", l.cpuTime().toString());
        n.put("memoryBytes", l.memoryBytes());
        n.put("maxProcesses", l.maxProcesses());
        n.put("maxOutputBytes", l.maxOutputBytes());
        n.put("maxFileBytes", l.maxFileBytes());
        n.put("network", l.network());
        return n;
    }

    private ObjectNode request(ExecutionRequest r) {
        ObjectNode n = mapper.createObjectNode();
        Program p = r.program();
        n.put("language", p.language().name());
        n.put("source", p.source());
        n.put("mainFile", p.mainFile());
        strings(n.putObject("files"), p.files());
        strings(n.putObject("binaryFiles"), p.binaryFiles());
        n.put("stdin", r.stdin());
        ArrayNode args = n.putArray("args");
        r.args().forEach(args::add);
        n.set("limits", limits(r.limits()));
        n.set("compileLimits", r.compileLimits() == null ? n.nullNode() : limits(r.compileLimits()));
        if (r.judging() == null) {
            n.set("judging", n.nullNode());
        } else {
            JudgeJob j = r.judging();
            ObjectNode job = n.putObject("judging");
            job.put("tests", j.tests());
            job.put("prelude", j.prelude());
            ArrayNode entries = job.putArray("entryPoints");
            j.entryPoints().forEach(entries::add);
            job.put("batch", j.batch());
        }
        return n;
    }

    private static void strings(ObjectNode into, java.util.Map<String, String> values) {
        new java.util.TreeMap<>(values).forEach(into::put);
    }

    private ObjectNode attempt(Attempt a) {
        ObjectNode n = mapper.createObjectNode();
        n.put("number", a.number());
        n.put("reply", a.reply());
        n.put("code", a.code());
        n.set("execution", a.execution() == null ? n.nullNode() : execution(a.execution()));
        n.set("verdict", verdict(a.verdict()));
        n.put("feedback", a.feedback());
        n.put("generationTime", a.generationTime().toString());
        n.put("executionTime", a.executionTime().toString());
        if (a.placement() == null) {
            n.set("placement", n.nullNode());
        } else {
            ObjectNode where = n.putObject("placement");
            where.put("host", a.placement().host());
            where.put("pid", a.placement().pid());
            where.put("tier", a.placement().tier());
        }
        return n;
    }

    private ObjectNode execution(Execution e) {
        ObjectNode n = mapper.createObjectNode();
        n.put("outcome", e.outcome().name());
        n.put("exitCode", e.exitCode());
        n.put("signal", e.signal());
        n.set("stdout", output(e.stdout()));
        n.set("stderr", output(e.stderr()));
        n.put("wallTime", e.wallTime().toString());
        n.put("cpuTime", e.cpuTime() == null ? null : e.cpuTime().toString());
        n.put("peakMemoryBytes", e.peakMemoryBytes());
        n.put("detail", e.detail());
        n.set("isolation", isolation(e.isolation()));
        // the judge's own report (the verdict can be re-derived from the stored row), in the shape judge.py wrote
        // when it was first stored: the store's form now, fixed by the golden files, whatever the judge's wire becomes
        n.set("judgement", e.judgement() == null ? n.nullNode() : judgement(e.judgement()));
        // both streams in arrival order, where the tier recorded it (what a terminal showed)
        n.set("output", e.output() == null ? n.nullNode() : output(e.output()));
        // a compiled language's compile stage (an execution of its own); null for the others
        n.set("compile", e.compile() == null ? n.nullNode() : execution(e.compile()));
        return n;
    }

    private ObjectNode output(CapturedOutput o) {
        ObjectNode n = mapper.createObjectNode();
        n.put("text", o.text());
        n.put("truncated", o.truncated());
        return n;
    }

    private ObjectNode isolation(Isolation i) {
        ObjectNode n = mapper.createObjectNode();
        n.put("tier", i.tier());
        // by the names reports show, sorted, so equal isolations are stored as equal text
        strings(n.putArray("features"), i.sortedFeatures());
        strings(n.putArray("missing"), i.sortedMissing());
        return n;
    }

    private ObjectNode verdict(Verdict v) {
        ObjectNode n = mapper.createObjectNode();
        n.put("kind", v.kind().name());
        n.put("message", v.message());
        n.set("error", v.error() == null ? n.nullNode() : error(v.error()));
        n.set("difference", v.difference() == null ? n.nullNode() : difference(v.difference()));
        return n;
    }

    private ObjectNode judgement(JudgeReport report) {
        ObjectNode n = mapper.createObjectNode();
        n.put("outcome", report.outcome().wireName());
        n.put("message", report.message());
        n.put("testLine", report.testLine());
        n.put("testSource", report.testSource());
        ArrayNode calls = n.putArray("calls");
        report.calls().forEach(calls::add);
        if (report.error() == null) {
            n.putNull("error");
        } else {
            ObjectNode e = n.putObject("error");
            e.put("type", report.error().type());
            e.put("message", report.error().message());
            ArrayNode frames = e.putArray("frames");
            for (JudgeReport.ReportedFrame f : report.error().frames()) {
                ObjectNode fn = frames.addObject();
                fn.put("file", f.file());
                fn.put("line", f.line());
                fn.put("function", f.function());
                fn.put("source", f.source());
            }
        }
        return n;
    }

    private ObjectNode error(ErrorReport r) {
        ObjectNode n = mapper.createObjectNode();
        n.put("type", r.type());
        n.put("message", r.message());
        n.put("line", r.line());
        n.put("sourceLine", r.sourceLine());
        ArrayNode frames = n.putArray("frames");
        for (Frame f : r.frames()) {
            frames.add(frame(f));
        }
        return n;
    }

    private ObjectNode frame(Frame f) {
        ObjectNode n = mapper.createObjectNode();
        n.put("file", f.file());
        n.put("line", f.line());
        n.put("function", f.function());
        n.put("sourceLine", f.sourceLine());
        n.put("codeLine", f.codeLine());
        return n;
    }

    private ObjectNode difference(OutputDifference d) {
        ObjectNode n = mapper.createObjectNode();
        n.put("line", d.line());
        n.put("expected", d.expected());
        n.put("actual", d.actual());
        return n;
    }

    private static void strings(ArrayNode array, Set<String> values) {
        for (String v : new TreeSet<>(values)) {
            array.add(v);
        }
    }

    // ---- stored JSON to domain

    private static Task task(Node n) {
        return new Task(n.text("prompt"), n.enumValue("language", Language::valueOf), n.optionalText("tests"),
                n.optionalText("expectedOutput"), n.text("stdin"), limits(n.object("limits")), n.integer("maxAttempts"));
    }

    private static ResourceLimits limits(Node n) {
        return new ResourceLimits(n.duration("wallTime"), n.duration("cpuTime"), n.longValue("memoryBytes"),
                n.integer("maxProcesses"), n.longValue("maxOutputBytes"), n.longValue("maxFileBytes"), n.bool("network"));
    }

    private static ExecutionRequest request(Node n) {
        Program program = new Program(n.enumValue("language", Language::valueOf), n.text("source"), n.textMap("files"),
                n.text("mainFile"), n.textMap("binaryFiles"));
        Node job = n.optionalObject("judging");
        JudgeJob judging = job == null ? null : new JudgeJob(job.text("tests"), job.optionalText("prelude"),
                job.textList("entryPoints"), job.optionalText("batch"));
        Node compile = n.optionalObject("compileLimits");
        return new ExecutionRequest(program, n.text("stdin"), n.textList("args"), limits(n.object("limits")), judging,
                compile == null ? null : limits(compile));
    }

    private static Attempt attempt(Node n) {
        Node execution = n.optionalObject("execution");
        return new Attempt(n.integer("number"), n.text("reply"), n.text("code"),
                execution == null ? null : execution(execution), verdict(n.object("verdict")), n.optionalText("feedback"),
                n.duration("generationTime"), n.duration("executionTime"), placement(n));
    }

    /** Rows stored before placements were recorded have no key. */
    private static Placement placement(Node n) {
        Node where = n.optionalObject("placement");
        return where == null ? null : new Placement(where.text("host"), where.longValue("pid"), where.text("tier"));
    }

    private static Execution execution(Node n) {
        return new Execution(n.enumValue("outcome", Outcome::valueOf), n.optionalInteger("exitCode"),
                n.optionalInteger("signal"), output(n.object("stdout")), output(n.object("stderr")), n.duration("wallTime"),
                n.isNull("cpuTime") ? null : n.duration("cpuTime"),
                n.isNull("peakMemoryBytes") ? null : n.longValue("peakMemoryBytes"), n.optionalText("detail"),
                isolation(n.object("isolation")), judgement(n), arrived(n), compileStage(n));
    }

    /** Rows stored before compiled languages existed have no key. */
    private static Execution compileStage(Node n) {
        Node stored = n.optionalObject("compile");
        return stored == null ? null : execution(stored);
    }

    /** Rows stored before arrival order was recorded have no key. */
    private static CapturedOutput arrived(Node n) {
        Node stored = n.optionalObject("output");
        return stored == null ? null : output(stored);
    }

    /** Rows stored before judging existed have no key; a stored report that no longer reads is an error. */
    private static JudgeReport judgement(Node n) {
        Node stored = n.optionalObject("judgement");
        if (stored == null) {
            return null;
        }
        try {
            Node error = stored.optionalObject("error");
            return new JudgeReport(stored.enumValue("outcome", JudgeReport.Outcome::fromWire), stored.text("message"),
                    stored.optionalInteger("testLine"), stored.optionalText("testSource"), stored.textList("calls"),
                    error == null ? null : raised(error));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(stored.path() + " is not a judge report", e);
        }
    }

    private static JudgeReport.RaisedError raised(Node n) {
        List<JudgeReport.ReportedFrame> frames = new ArrayList<>();
        for (Node f : n.objects("frames")) {
            frames.add(new JudgeReport.ReportedFrame(f.text("file"), f.integer("line"), f.text("function"), f.text("source")));
        }
        return new JudgeReport.RaisedError(n.text("type"), n.text("message"), frames);
    }

    private static CapturedOutput output(Node n) {
        return new CapturedOutput(n.text("text"), n.bool("truncated"));
    }

    /** Feature names are kept as stored: the domain's vocabulary decides what each one means. */
    private static Isolation isolation(Node n) {
        // older rows may carry names of earlier versions for the same guarantee; names no version knows are dropped
        return Isolation.of(n.text("tier"), features(n.strings("features")), features(n.strings("missing")));
    }

    private static List<IsolationFeature> features(java.util.Collection<String> names) {
        List<IsolationFeature> out = new ArrayList<>();
        for (String name : names) {
            IsolationFeature.fromWireName(name).ifPresent(out::add);
        }
        return out;
    }

    private static Verdict verdict(Node n) {
        Node error = n.optionalObject("error");
        Node difference = n.optionalObject("difference");
        return new Verdict(n.enumValue("kind", Verdict.Kind::valueOf), n.optionalText("message"),
                error == null ? null : error(error), difference == null ? null : difference(difference));
    }

    private static ErrorReport error(Node n) {
        List<Frame> frames = new ArrayList<>();
        for (Node f : n.objects("frames")) {
            frames.add(new Frame(f.text("file"), f.integer("line"), f.text("function"), f.optionalText("sourceLine"),
                    f.optionalInteger("codeLine")));
        }
        return new ErrorReport(n.text("type"), n.optionalText("message"), n.optionalInteger("line"),
                n.optionalText("sourceLine"), frames);
    }

    private static OutputDifference difference(Node n) {
        return new OutputDifference(n.integer("line"), n.optionalText("expected"), n.optionalText("actual"));
    }

    /** A JSON object being read, with its path for error messages ({@code attempt.verdict.kind}). */
    private record Node(JsonNode json, String path) {

        Node {
            if (!json.isObject()) {
                throw new IllegalArgumentException(path + " is not an object");
            }
        }

        boolean isNull(String field) {
            JsonNode v = json.get(field);
            return v == null || v.isNull();
        }

        private JsonNode present(String field) {
            if (isNull(field)) {
                throw new IllegalArgumentException(path + "." + field + " is missing");
            }
            return json.get(field);
        }

        private IllegalArgumentException wrong(String field, String what) {
            return new IllegalArgumentException(path + "." + field + " is not " + what);
        }

        String text(String field) {
            JsonNode v = present(field);
            if (!v.isTextual()) {
                throw wrong(field, "text");
            }
            return v.textValue();
        }

        String optionalText(String field) {
            return isNull(field) ? null : text(field);
        }

        int integer(String field) {
            JsonNode v = present(field);
            if (!v.isIntegralNumber() || !v.canConvertToInt()) {
                throw wrong(field, "an integer");
            }
            return v.intValue();
        }

        Integer optionalInteger(String field) {
            return isNull(field) ? null : integer(field);
        }

        long longValue(String field) {
            JsonNode v = present(field);
            if (!v.isIntegralNumber() || !v.canConvertToLong()) {
                throw wrong(field, "an integer");
            }
            return v.longValue();
        }

        boolean bool(String field) {
            JsonNode v = present(field);
            if (!v.isBoolean()) {
                throw wrong(field, "true or false");
            }
            return v.booleanValue();
        }

        Duration duration(String field) {
            String text = text(field);
            try {
                return Duration.parse(text);
            } catch (DateTimeParseException e) {
                throw wrong(field, "an ISO-8601 duration");
            }
        }

        <E extends Enum<E>> E enumValue(String field, Function<String, E> valueOf) {
            String name = text(field);
            try {
                return valueOf.apply(name);
            } catch (IllegalArgumentException e) {
                throw wrong(field, "a known value (" + name + ")");
            }
        }

        Node object(String field) {
            return new Node(present(field), path + "." + field);
        }

        Node optionalObject(String field) {
            return isNull(field) ? null : object(field);
        }

        List<Node> objects(String field) {
            JsonNode v = present(field);
            if (!v.isArray()) {
                throw wrong(field, "a list");
            }
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                nodes.add(new Node(v.get(i), path + "." + field + "[" + i + "]"));
            }
            return nodes;
        }

        List<String> textList(String field) {
            JsonNode v = present(field);
            if (!v.isArray()) {
                throw wrong(field, "a list");
            }
            List<String> values = new ArrayList<>();
            for (JsonNode e : v) {
                if (!e.isTextual()) {
                    throw wrong(field, "a list of text");
                }
                values.add(e.textValue());
            }
            return values;
        }

        java.util.Map<String, String> textMap(String field) {
            JsonNode v = present(field);
            if (!v.isObject()) {
                throw wrong(field, "an object");
            }
            java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
            for (var it = v.fields(); it.hasNext(); ) {
                var e = it.next();
                if (!e.getValue().isTextual()) {
                    throw wrong(field + "." + e.getKey(), "text");
                }
                values.put(e.getKey(), e.getValue().textValue());
            }
            return values;
        }

        Set<String> strings(String field) {
            return new LinkedHashSet<>(textList(field));
        }
    }
}
