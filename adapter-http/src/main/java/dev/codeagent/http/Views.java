package dev.codeagent.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.view.ExecutionView;
import dev.codeagent.application.view.RunSummaryView;
import dev.codeagent.application.view.RunView;
import dev.codeagent.application.view.TaskView;
import dev.codeagent.application.view.VerdictView;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunEvent;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Instant;

/**
 * The API's JSON: the application's views ({@code application.view}), which {@code --json} on the CLI prints too,
 * plus what only this door has (a run's {@code links}, an event's envelope).
 */
final class Views {

    static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private Views() {
    }

    static ObjectNode execution(Execution e) {
        return MAPPER.valueToTree(ExecutionView.of(e));
    }

    /** A submitted execution: where it is, and its result once it is done. */
    static ObjectNode submission(dev.codeagent.application.submit.StoredExecution s) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("id", s.id());
        n.put("status", s.status().name());
        n.put("acceptedAt", instant(s.acceptedAt()));
        n.put("finishedAt", s.finishedAt() == null ? null : instant(s.finishedAt()));
        n.set("result", s.result() == null ? null : execution(s.result()));
        n.putObject("links").put("self", "/v1/executions/" + s.id());
        return n;
    }

    /** Given code judged: the verdict with its analysis and the run that decided it. */
    static ObjectNode judgement(Verdict verdict, Execution execution) {
        return MAPPER.valueToTree(dev.codeagent.application.view.JudgementView.of(verdict, execution));
    }

    /** A submitted judgement: where it is, and its judgement once it is done. */
    static ObjectNode judgementSubmission(dev.codeagent.application.submit.StoredExecution s) {
        ObjectNode n = submission(s);
        n.set("result", s.result() == null ? null : judgement(s.verdict(), s.result()));
        n.putObject("links").put("self", "/v1/judgements/" + s.id());
        return n;
    }

    static ObjectNode task(Task t) {
        return MAPPER.valueToTree(TaskView.of(t));
    }

    /** A run in full, with where to find it and its events. */
    static ObjectNode run(Run r) {
        return linked(MAPPER.valueToTree(RunView.of(r)), r);
    }

    static ObjectNode runSummary(Run r) {
        return linked(MAPPER.valueToTree(RunSummaryView.of(r)), r);
    }

    /** The one field only this door has: the run's addresses in this API (the view is the same for every door). */
    private static ObjectNode linked(ObjectNode view, Run r) {
        ObjectNode links = view.putObject("links");
        links.put("self", "/v1/runs/" + r.id());
        links.put("events", "/v1/runs/" + r.id() + "/events");
        return view;
    }

    static ObjectNode verdict(Verdict v) {
        return MAPPER.valueToTree(VerdictView.of(v));
    }

    /** An event's SSE data: its run, time and type, and what it carries. */
    static ObjectNode event(RunEvent e, long id) {
        ObjectNode n = MAPPER.createObjectNode();
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
