package dev.codeagent.http;

import dev.codeagent.domain.execution.ExecutionRequest;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/**
 * {@code POST /v1/executions}: run a program once and answer with how it went; {@code GET /v1/languages}:
 * what it can be written in.
 */
final class ExecutionRoutes {

    private final ExecutionGate gate;
    private final JsonBodies bodies;
    private final ApiRequests requests;
    private final PistonApi runtimes;
    private final IdempotentReplies replies;

    ExecutionRoutes(ExecutionGate gate, JsonBodies bodies, ApiRequests requests, PistonApi runtimes, IdempotentReplies replies) {
        this.replies = replies;
        this.gate = gate;
        this.bodies = bodies;
        this.requests = requests;
        this.runtimes = runtimes;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/executions", this::execute);
        router.route(HandlerType.GET, "/v1/languages", ctx -> Router.json(ctx, 200, runtimes.languages()));
    }

    private void execute(Context ctx) {
        String text = bodies.jsonText(ctx);
        ApiRequests.ExecutionBody body = bodies.strict(text, ApiRequests.ExecutionBody.class);
        ExecutionRequest request = requests.execution(body);
        replies.answer(ctx, text, () -> IdempotentReplies.json(200, null,
                Views.execution(gate.run(request, "api", RequestGuard.caller(ctx)))));
    }
}
