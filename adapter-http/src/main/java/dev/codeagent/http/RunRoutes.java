package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.run.RunScheduler;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Agent runs: {@code POST /v1/runs} starts one in the background, {@code GET /v1/runs[/{id}]} lists and
 * shows them, {@code DELETE /v1/runs/{id}} cancels one, {@code GET /v1/runs/{id}/events} streams its
 * events (resumable with {@code Last-Event-ID}).
 */
final class RunRoutes {

    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    private final RunService runs;
    private final EventStreams streams;
    private final JsonBodies bodies;
    private final ApiRequests requests;
    private final IdempotentReplies replies;

    RunRoutes(RunService runs, EventStreams streams, JsonBodies bodies, ApiRequests requests, IdempotentReplies replies) {
        this.replies = replies;
        this.runs = runs;
        this.streams = streams;
        this.bodies = bodies;
        this.requests = requests;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/runs", this::startRun);
        router.route(HandlerType.GET, "/v1/runs", this::listRuns);
        router.route(HandlerType.GET, "/v1/runs/{id}", this::getRun);
        router.route(HandlerType.DELETE, "/v1/runs/{id}", this::cancelRun);
        router.route(HandlerType.GET, "/v1/runs/{id}/events", this::events);
    }

    private void startRun(Context ctx) {
        String text = bodies.jsonText(ctx);
        ApiRequests.RunBody body = bodies.strict(text, ApiRequests.RunBody.class);
        Task task = requests.task(body);
        Caller caller = RequestGuard.caller(ctx);
        replies.answer(ctx, text, () -> {
            String id = SolveTask.newRunId();
            Run run = runs.start(caller, id, task);
            return IdempotentReplies.json(202, "/v1/runs/" + id, Views.run(runs.find(caller, id).orElse(run)));
        });
    }

    private void listRuns(Context ctx) {
        int limit = 20;
        String rawLimit = ctx.queryParam("limit");
        if (rawLimit != null) {
            try {
                limit = Integer.parseInt(rawLimit.trim());
            } catch (NumberFormatException e) {
                throw ProblemException.invalid("limit", "must be a whole number between 1 and 100");
            }
            if (limit < 1 || limit > 100) {
                throw ProblemException.invalid("limit", "must be between 1 and 100, was " + limit);
            }
        }
        Set<RunStatus> statuses = statuses(ctx.queryParam("status"));
        Caller caller = RequestGuard.caller(ctx);
        String before = ctx.queryParam("before");
        if (before != null) {
            if (!RUN_ID.matcher(before).matches() || runs.find(caller, before).isEmpty()) {
                throw ProblemException.invalid("before", "no run with id '" + JsonBodies.abbreviate(before, 40) + "'");
            }
        }
        List<Run> page = runs.recent(caller, statuses, limit, before);
        ObjectNode body = Views.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("runs");
        page.forEach(r -> list.add(Views.runSummary(r)));
        String next = page.size() == limit ? page.get(page.size() - 1).id() : null;
        body.put("next", next);
        if (next != null) {
            String status = String.join(",", statuses.stream().map(RunStatus::name).toList());
            ctx.header("Link", "</v1/runs?limit=" + limit + (status.isEmpty() ? "" : "&status=" + status) + "&before=" + next
                    + ">; rel=\"next\"");
        }
        Router.json(ctx, 200, body);
    }

    /** {@code status=SOLVED,FAILED}, read as every door reads it ({@link RunStatus#parseList}); a wrong name is a 400. */
    private static Set<RunStatus> statuses(String raw) {
        try {
            return RunStatus.parseList(raw);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("status", e.getMessage());
        }
    }

    private static String runId(Context ctx) {
        String id = ctx.pathParam("id");
        if (!RUN_ID.matcher(id).matches()) {
            throw new ProblemException(Type.NOT_FOUND, "no run with that id");
        }
        return id;
    }

    /** The run named in the path, when the caller may see it; otherwise 404, the same as for no such run. */
    private Run visible(Context ctx, String id) {
        return runs.find(RequestGuard.caller(ctx), id)
                .orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no run with id '" + id + "'"));
    }

    private void getRun(Context ctx) {
        String id = runId(ctx);
        Router.json(ctx, 200, Views.run(visible(ctx, id)));
    }

    private void cancelRun(Context ctx) throws InterruptedException {
        String id = runId(ctx);
        Caller caller = RequestGuard.caller(ctx);
        // looked up before anything is done: another caller's run is not found, and nothing is asked of it
        visible(ctx, id);
        Optional<RunScheduler.Cancellation> cancelled = runs.cancel(caller, id, Duration.ofSeconds(2));
        if (cancelled.isPresent()) {
            Router.json(ctx, cancelled.get().ended() ? 200 : 202, Views.run(cancelled.get().run()));
            return;
        }
        Run run = visible(ctx, id);
        if (run.status() == RunStatus.CANCELLED) {
            Router.json(ctx, 200, Views.run(run));
        } else if (run.status() == RunStatus.RUNNING && runs.cancelElsewhere(caller, id)) {
            // queued, or worked by another process of a shared store: its worker is told and ends it
            Router.json(ctx, 202, Views.run(runs.find(caller, id).orElse(run)));
        } else if (run.status() == RunStatus.RUNNING) {
            throw new ProblemException(Type.CONFLICT, "run '" + id + "' is not being worked on by this server");
        } else {
            throw new ProblemException(Type.CONFLICT, "run '" + id + "' has already ended as " + run.status());
        }
    }

    private void events(Context ctx) {
        String id = runId(ctx);
        long lastId = lastEventId(ctx);
        EventJournal journal = runs.journal(RequestGuard.caller(ctx), id).orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no run with id '" + id + "'"));
        if (journal.seenToTheEnd(lastId)) {
            // the replay is over and nothing will come: 204 is what makes an EventSource stop reconnecting
            ctx.status(204);
            return;
        }
        streams.acquire();
        streams.stream(ctx.res(), EventStreams.of(journal), lastId);
    }

    static long lastEventId(Context ctx) {
        String raw = ctx.header("Last-Event-ID");
        String field = "Last-Event-ID";
        if (raw == null) {
            raw = ctx.queryParam("lastEventId");
            field = "lastEventId";
        }
        if (raw == null || raw.isBlank()) {
            return 0;
        }
        try {
            long v = Long.parseLong(raw.trim());
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw ProblemException.invalid(field, "must be the id of an event received before (a whole number)");
        }
    }
}
