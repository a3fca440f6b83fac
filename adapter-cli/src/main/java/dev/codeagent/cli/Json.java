package dev.codeagent.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.execute.ExecutionSummary;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Run;
import java.io.UncheckedIOException;
import java.time.Duration;

/** The JSON the CLI prints with {@code --json}: field names and shapes are a contract for scripts. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Json() {
    }

    static String write(Object node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code codeagent exec --json}: exactly outcome, exitCode, signal, stdout, stderr, stdoutTruncated,
     * stderrTruncated, wallTimeMs, cpuTimeMs, peakMemoryBytes, sandbox, isolation, compile (null where unknown).
     */
    static ObjectNode execution(Execution e) {
        return MAPPER.valueToTree(ExecutionSummary.of(e));
    }

    /**
     * {@code codeagent solve --json}: id, status, attempts, code (the final code), output (its stdout),
     * reason (why it ended so, or null).
     */
    static ObjectNode run(Run run) {
        ObjectNode o = NODES.objectNode();
        o.put("id", run.id());
        o.put("status", run.status().name());
        ArrayNode attempts = o.putArray("attempts");
        run.attempts().forEach(a -> attempts.add(attempt(a)));
        Attempt last = run.lastAttempt();
        o.put("code", last == null ? null : last.code());
        o.put("output", last == null || last.execution() == null ? null : last.execution().stdout().text());
        o.put("reason", run.reason());
        return o;
    }

    /** {@code codeagent runs show --json}: the run as {@link #run} plus prompt, language, startedAt, endedAt. */
    static ObjectNode runDetail(Run run) {
        ObjectNode o = run(run);
        o.put("prompt", run.task().prompt());
        o.put("language", run.task().language().id());
        o.put("startedAt", run.startedAt().toString());
        o.put("endedAt", run.endedAt() == null ? null : run.endedAt().toString());
        o.put("owner", run.owner());
        return o;
    }

    /** One line of {@code codeagent runs --json}. */
    static ObjectNode runSummary(Run run) {
        ObjectNode o = NODES.objectNode();
        o.put("id", run.id());
        o.put("status", run.status().name());
        o.put("attempts", run.attempts().size());
        o.put("maxAttempts", run.task().maxAttempts());
        o.put("startedAt", run.startedAt().toString());
        o.put("endedAt", run.endedAt() == null ? null : run.endedAt().toString());
        o.put("prompt", run.task().prompt());
        o.put("owner", run.owner());
        return o;
    }

    static ObjectNode attempt(Attempt a) {
        ObjectNode o = NODES.objectNode();
        o.put("number", a.number());
        o.put("code", a.code());
        o.put("verdict", a.verdict().kind().name());
        Execution e = a.execution();
        o.put("outcome", e == null ? null : e.outcome().name());
        ErrorReport error = a.verdict().error();
        if (error == null) {
            o.putNull("error");
        } else {
            ObjectNode err = o.putObject("error");
            err.put("type", error.type());
            err.put("message", error.message());
            err.put("line", error.line());
            err.put("sourceLine", error.sourceLine());
        }
        o.put("stdout", e == null ? null : e.stdout().text());
        o.put("stderr", e == null ? null : e.stderr().text());
        o.put("generationMs", a.generationTime().toMillis());
        o.put("executionMs", a.executionTime().toMillis());
        o.set("placement", placement(a.placement()));
        return o;
    }

    /** Where an attempt was made: host, pid, tier; null when not recorded. */
    static ObjectNode placement(dev.codeagent.domain.solving.Placement p) {
        if (p == null) {
            return null;
        }
        ObjectNode o = NODES.objectNode();
        o.put("host", p.host());
        o.put("pid", p.pid());
        o.put("tier", p.tier());
        return o;
    }

    private static Long millis(Duration d) {
        return d == null ? null : d.toMillis();
    }
}
