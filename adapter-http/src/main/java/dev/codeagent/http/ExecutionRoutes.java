package dev.codeagent.http;

import dev.codeagent.application.run.Caller;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.application.submit.SubmitExecutions;
import dev.codeagent.domain.execution.ExecutionRequest;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * {@code POST /v1/executions}: run a program once and answer with how it went, or ({@code "wait": false}, {@code
 * Prefer: respond-async}) accept it and answer 202 with where its result will be, or ({@code Accept:
 * text/event-stream}) stream its output as it is written and then its result ({@link ExecutionStream}); {@code POST
 * /v1/executions/batch}: accept many at once; {@code GET /v1/executions/{id}} and {@code GET /v1/executions?ids=…}:
 * collect them; {@code GET /v1/languages}: what programs may be written in.
 */
final class ExecutionRoutes {

    private static final Pattern ID = Pattern.compile("ex_[A-Za-z0-9_-]{1,64}");

    private final ExecutionGate gate;
    private final JsonBodies bodies;
    private final ApiRequests requests;
    private final PistonApi runtimes;
    private final IdempotentReplies replies;
    private final SubmitExecutions submissions;
    private final Callbacks callbacks;
    private final SubmissionRoutes routes;

    ExecutionRoutes(ExecutionGate gate, JsonBodies bodies, ApiRequests requests, PistonApi runtimes, IdempotentReplies replies,
            SubmitExecutions submissions, int maxBatch, Callbacks callbacks) {
        this.callbacks = callbacks;
        this.gate = gate;
        this.bodies = bodies;
        this.requests = requests;
        this.runtimes = runtimes;
        this.replies = replies;
        this.submissions = submissions;
        this.routes = new SubmissionRoutes(submissions, maxBatch, "execution", ID, "executions", Views::submission);
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/executions", this::execute);
        router.route(HandlerType.POST, "/v1/executions/batch", this::batch);
        router.route(HandlerType.GET, "/v1/executions", routes::collect);
        router.route(HandlerType.GET, "/v1/executions/{id}", routes::find);
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
                String id = routes.submit(caller, List.of(submission)).get(0);
                StoredExecution accepted = submissions.find(caller, id).orElseThrow();
                return IdempotentReplies.json(202, "/v1/executions/" + id, Views.submission(accepted));
            });
            return;
        }
        if (body.callbackUrl() != null) {
            throw ProblemException.invalid("callbackUrl", "a callback is for a submission answered later: add \"wait\": false"
                    + " (or Prefer: respond-async), or leave callbackUrl out");
        }
        if (ExecutionStream.wanted(ctx.header("Accept"))) {
            // output as it is written; not replayed for an Idempotency-Key (a stream is not a stored answer)
            gate.validate(request);
            ExecutionStream.run(gate, request, caller, ctx.res());
            return;
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
        List<SubmitExecutions.Submission> batch = routes.batch(body.submissions(), ApiRequests.ExecutionBody::waitForResult, one -> {
            ExecutionRequest request = requests.execution(one);
            gate.validate(request);
            return submission(ctx, request, one.callbackUrl(), "callbackUrl");
        });
        Caller caller = RequestGuard.caller(ctx);
        replies.answer(ctx, text, () -> IdempotentReplies.json(202, null, SubmissionRoutes.accepted(routes.submit(caller, batch))));
    }
}
