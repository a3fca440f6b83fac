package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.application.submit.SubmitExecutions;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code POST /v1/executions}: run a program once and answer with how it went, or ({@code "wait": false}, {@code
 * Prefer: respond-async}) accept it and answer 202 with where its result will be; {@code POST /v1/executions/batch}:
 * accept many at once; {@code GET /v1/executions/{id}} and {@code GET /v1/executions?ids=…}: collect them; {@code GET
 * /v1/languages}: what programs may be written in.
 */
final class ExecutionRoutes {

    private static final Pattern ID = Pattern.compile("ex_[A-Za-z0-9_-]{1,64}");

    private final ExecutionGate gate;
    private final JsonBodies bodies;
    private final ApiRequests requests;
    private final PistonApi runtimes;
    private final IdempotentReplies replies;
    private final SubmitExecutions submissions;
    private final int maxBatch;
    private final Callbacks callbacks;

    ExecutionRoutes(ExecutionGate gate, JsonBodies bodies, ApiRequests requests, PistonApi runtimes, IdempotentReplies replies,
            SubmitExecutions submissions, int maxBatch, Callbacks callbacks) {
        this.callbacks = callbacks;
        this.gate = gate;
        this.bodies = bodies;
        this.requests = requests;
        this.runtimes = runtimes;
        this.replies = replies;
        this.submissions = submissions;
        this.maxBatch = maxBatch;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/executions", this::execute);
        router.route(HandlerType.POST, "/v1/executions/batch", this::batch);
        router.route(HandlerType.GET, "/v1/executions", this::collect);
        router.route(HandlerType.GET, "/v1/executions/{id}", this::find);
        router.route(HandlerType.GET, "/v1/languages", ctx -> Router.json(ctx, 200, runtimes.languages()));
    }

    private void execute(Context ctx) {
        String text = bodies.jsonText(ctx);
        ApiRequests.ExecutionBody body = bodies.strict(text, ApiRequests.ExecutionBody.class);
        ExecutionRequest request = requests.execution(body);
        Caller caller = RequestGuard.caller(ctx);
        if (Boolean.FALSE.equals(body.waitForResult()) || prefersAsync(ctx)) {
            gate.validate(request);
            SubmitExecutions.Submission submission = submission(ctx, request, body.callbackUrl(), "callbackUrl");
            replies.answer(ctx, text, () -> {
                String id = submit(caller, List.of(submission)).get(0);
                StoredExecution accepted = submissions.find(caller, id).orElseThrow();
                return IdempotentReplies.json(202, "/v1/executions/" + id, Views.submission(accepted));
            });
            return;
        }
        if (body.callbackUrl() != null) {
            throw ProblemException.invalid("callbackUrl", "a callback is for a submission answered later: add \"wait\": false"
                    + " (or Prefer: respond-async), or leave callbackUrl out");
        }
        replies.answer(ctx, text, () -> IdempotentReplies.json(200, null, Views.execution(gate.run(request, "api", caller))));
    }

    /** The submission of a request, with its callback when it names one. */
    private SubmitExecutions.Submission submission(Context ctx, ExecutionRequest request, String callbackUrl, String field) {
        if (callbackUrl == null) {
            return new SubmitExecutions.Submission(request, null);
        }
        Callbacks.Target target = callbacks.target(callbackUrl, ctx.attribute(RequestGuard.KEY_NAME), field);
        return new SubmitExecutions.Submission(request, done -> callbacks.deliver(target, done));
    }

    /** RFC 7240: {@code Prefer: respond-async}, among other preferences or alone. */
    static boolean prefersAsync(Context ctx) {
        return java.util.Collections.list(ctx.req().getHeaders("Prefer")).stream().flatMap(h -> Arrays.stream(h.split(",")))
                .map(p -> p.split(";", 2)[0].trim().toLowerCase(Locale.ROOT)).anyMatch("respond-async"::equals);
    }

    private void batch(Context ctx) {
        String text = bodies.jsonText(ctx);
        ApiRequests.BatchBody body = bodies.strict(text, ApiRequests.BatchBody.class);
        if (body.submissions() == null || body.submissions().isEmpty()) {
            throw ProblemException.invalid("submissions", "required: 1 to " + maxBatch + " executions, each as POST /v1/executions"
                    + " takes it");
        }
        if (body.submissions().size() > maxBatch) {
            throw ProblemException.invalid("submissions", "at most " + maxBatch + " executions in one batch (http.maxBatchSize),"
                    + " got " + body.submissions().size());
        }
        List<SubmitExecutions.Submission> batch = new ArrayList<>();
        List<ProblemException.FieldError> errors = new ArrayList<>();
        for (int i = 0; i < body.submissions().size(); i++) {
            String prefix = "submissions[" + i + "]";
            ApiRequests.ExecutionBody one = body.submissions().get(i);
            if (one == null) {
                errors.add(new ProblemException.FieldError(prefix, "must be an execution, not null"));
                continue;
            }
            if (one.waitForResult() != null) {
                errors.add(new ProblemException.FieldError(prefix + ".wait", "a batch is always collected later: leave wait out"));
                continue;
            }
            try {
                ExecutionRequest request = requests.execution(one);
                gate.validate(request);
                batch.add(submission(ctx, request, one.callbackUrl(), "callbackUrl"));
            } catch (ProblemException e) {
                e.errors().forEach(f -> errors.add(new ProblemException.FieldError(prefix + "." + f.field(), f.message())));
                if (e.errors().isEmpty()) {
                    errors.add(new ProblemException.FieldError(prefix, e.getMessage()));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        Caller caller = RequestGuard.caller(ctx);
        replies.answer(ctx, text, () -> {
            ObjectNode answer = Views.MAPPER.createObjectNode();
            ArrayNode ids = answer.putArray("ids");
            submit(caller, batch).forEach(ids::add);
            return IdempotentReplies.json(202, null, answer);
        });
    }

    private List<String> submit(Caller caller, List<SubmitExecutions.Submission> batch) {
        try {
            return submissions.submitAll(caller, batch);
        } catch (OverloadedException e) {
            throw ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), e.retryAfter());
        }
    }

    private void find(Context ctx) {
        String id = ctx.pathParam("id");
        Optional<StoredExecution> found = ID.matcher(id).matches() ? submissions.find(RequestGuard.caller(ctx), id) : Optional.empty();
        StoredExecution s = found.orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no execution with id '"
                + JsonBodies.abbreviate(id, 80) + "' (results are kept for http.resultsKeep after they end)"));
        Router.json(ctx, 200, Views.submission(s));
    }

    private void collect(Context ctx) {
        String raw = ctx.queryParam("ids");
        if (raw == null || raw.isBlank()) {
            throw ProblemException.invalid("ids", "required: the ids to collect, separated by commas (at most " + maxBatch + ")");
        }
        List<String> ids = Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (ids.size() > maxBatch) {
            throw ProblemException.invalid("ids", "at most " + maxBatch + " ids at once (http.maxBatchSize), got " + ids.size());
        }
        Caller caller = RequestGuard.caller(ctx);
        ObjectNode answer = Views.MAPPER.createObjectNode();
        ArrayNode list = answer.putArray("executions");
        for (String id : ids) {
            Optional<StoredExecution> s = ID.matcher(id).matches() ? submissions.find(caller, id) : Optional.empty();
            if (s.isPresent()) {
                list.add(Views.submission(s.get()));
            } else {
                // one unknown id does not spoil the others: it is answered in its place
                list.addObject().put("id", JsonBodies.abbreviate(id, 80)).put("status", "NOT_FOUND");
            }
        }
        Router.json(ctx, 200, answer);
    }
}
