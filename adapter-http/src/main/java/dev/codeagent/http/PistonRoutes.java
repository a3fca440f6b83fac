package dev.codeagent.http;

import dev.codeagent.domain.execution.ExecutionRequest;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/**
 * The Piston-compatible endpoints: {@code POST /api/v2/execute}, {@code GET /api/v2/runtimes} and
 * {@code GET /api/v2/packages} (read-only: the runtimes are the sandbox's, so
 * installing or removing one is a 405).
 */
final class PistonRoutes {

    private final ExecutionGate gate;
    private final JsonBodies bodies;
    private final PistonApi piston;

    PistonRoutes(ExecutionGate gate, JsonBodies bodies, PistonApi piston) {
        this.gate = gate;
        this.bodies = bodies;
        this.piston = piston;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/api/v2/execute", this::execute);
        router.route(HandlerType.GET, "/api/v2/runtimes", ctx -> Router.json(ctx, 200, piston.runtimes()));
        router.route(HandlerType.GET, "/api/v2/packages", ctx -> Router.json(ctx, 200, piston.packages()));
    }

    private void execute(Context ctx) {
        PistonApi.ExecuteBody body = bodies.lenient(ctx, PistonApi.ExecuteBody.class);
        ExecutionRequest request = piston.request(body);
        Router.json(ctx, 200, piston.response(request.program().language(), gate.run(request, "piston", RequestGuard.caller(ctx))));
    }
}
