package dev.codeagent.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.execute.ExecutionSummary;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.ErrorReport;
import dev.codeagent.domain.solving.Frame;
import dev.codeagent.domain.solving.OutputDifference;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Instant;

/**
 * The API's JSON shapes, written out field by field so that they stay stable whatever the domain
 * records grow. An execution has the fields of {@code codeagent exec --json} (plus {@code detail}).
 */
final class Views {

    static final ObjectMapper MAPPER = JsonMapper.builder().build();
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private Views() {
    }

    static ObjectNode execution(Execution e) {
        // the same fields as `codeagent exec --json`, plus the sandbox's explanation of the outcome
        ObjectNode n = MAPPER.valueToTree(ExecutionSummary.of(e));
        n.put("detail", e.detail());
        return n;
    }

    static ObjectNode limits(ResourceLimits l) {
        ObjectNode n = F.objectNode();
        n.put("timeoutMs", l.wallTime().toMillis());
        n.put("cpuTimeMs", l.cpuTime().toMillis());
        n.put("memoryBytes", l.memoryBytes());
        n.put("maxProcesses", l.maxProcesses());
        n.put("maxOutputBytes", l.maxOutputBytes());
        n.put("maxFileBytes", l.maxFileBytes());
        return n;
    }

    static ObjectNode task(Task t) {
        ObjectNode n = F.objectNode();
        n.put("prompt", t.prompt());
        n.put("language", t.language().id());
        n.put("tests", t.tests());
        n.put("expectedOutput", t.expectedOutput());
        n.put("stdin", t.stdin());
        n.set("limits", limits(t.limits()));
        n.put("maxAttempts", t.maxAttempts());
        return n;
    }

    static ObjectNode run(Run r) {
        ObjectNode n = runSummary(r);
        n.set("task", task(r.task()));
        ArrayNode attempts = n.putArray("attempts");
        r.attempts().forEach(a -> attempts.add(attempt(a)));
        return n;
    }

    static ObjectNode runSummary(Run r) {
        ObjectNode n = F.objectNode();
        n.put("id", r.id());
        n.put("status", r.status().name());
        n.put("reason", r.reason());
        n.put("startedAt", instant(r.startedAt()));
        n.put("endedAt", instant(r.endedAt()));
        n.put("language", r.task().language().id());
        n.put("prompt", r.task().prompt());
        n.put("attemptCount", r.attempts().size());
        // whose: shown only to that caller or to an operator, the only ones who see the run
        n.put("owner", r.owner());
        ObjectNode links = n.putObject("links");
        links.put("self", "/v1/runs/" + r.id());
        links.put("events", "/v1/runs/" + r.id() + "/events");
        return n;
    }

    static ObjectNode attempt(Attempt a) {
        ObjectNode n = F.objectNode();
        n.put("number", a.number());
        n.put("reply", a.reply());
        n.put("code", a.code());
        n.set("execution", a.execution() == null ? null : execution(a.execution()));
        n.set("verdict", verdict(a.verdict()));
        n.put("feedback", a.feedback());
        n.put("generationTimeMs", a.generationTime().toMillis());
        n.put("executionTimeMs", a.executionTime().toMillis());
        if (a.placement() == null) {
            n.putNull("placement");
        } else {
            ObjectNode where = n.putObject("placement");
            where.put("host", a.placement().host());
            where.put("pid", a.placement().pid());
            where.put("tier", a.placement().tier());
        }
        return n;
    }

    static ObjectNode verdict(Verdict v) {
        ObjectNode n = F.objectNode();
        n.put("kind", v.kind().name());
        n.put("message", v.message());
        n.set("error", v.error() == null ? null : error(v.error()));
        n.set("difference", v.difference() == null ? null : difference(v.difference()));
        return n;
    }

    static ObjectNode error(ErrorReport e) {
        ObjectNode n = F.objectNode();
        n.put("type", e.type());
        n.put("message", e.message());
        n.put("line", e.line());
        n.put("sourceLine", e.sourceLine());
        n.put("summary", e.summary());
        ArrayNode frames = n.putArray("frames");
        for (Frame f : e.frames()) {
            ObjectNode fn = frames.addObject();
            fn.put("file", f.file());
            fn.put("line", f.line());
            fn.put("function", f.function());
            fn.put("sourceLine", f.sourceLine());
            fn.put("codeLine", f.codeLine());
        }
        return n;
    }

    static ObjectNode difference(OutputDifference d) {
        ObjectNode n = F.objectNode();
        n.put("line", d.line());
        n.put("expected", d.expected());
        n.put("actual", d.actual());
        n.put("summary", d.summary());
        return n;
    }

    /** An event's SSE data: its run, time and type, and what it carries. */
    static ObjectNode event(RunEvent e, long id) {
        ObjectNode n = F.objectNode();
        n.put("id", id);
        n.put("type", e.name());
        n.put("runId", e.runId());
        n.put("at", instant(e.at()));
        if (e instanceof RunEvent.RunStarted) {
            n.set("task", task(((RunEvent.RunStarted) e).task()));
        } else if (e instanceof RunEvent.AttemptStarted) {
            RunEvent.AttemptStarted s = (RunEvent.AttemptStarted) e;
            n.put("attempt", s.attempt());
            n.put("maxAttempts", s.maxAttempts());
        } else if (e instanceof RunEvent.CodeGenerated) {
            RunEvent.CodeGenerated g = (RunEvent.CodeGenerated) e;
            n.put("attempt", g.attempt());
            n.put("code", g.code());
        } else if (e instanceof RunEvent.Executed) {
            RunEvent.Executed x = (RunEvent.Executed) e;
            n.put("attempt", x.attempt());
            n.set("execution", execution(x.execution()));
        } else if (e instanceof RunEvent.Judged) {
            Attempt a = ((RunEvent.Judged) e).attempt();
            n.put("attempt", a.number());
            n.set("verdict", verdict(a.verdict()));
            n.put("feedback", a.feedback());
        } else if (e instanceof RunEvent.RunFinished) {
            RunEvent.RunFinished f = (RunEvent.RunFinished) e;
            n.put("status", f.status().name());
            n.put("reason", f.reason());
        }
        return n;
    }

    static String instant(Instant i) {
        return i == null ? null : i.toString();
    }
}
