package dev.codeagent.http;

import dev.codeagent.domain.execution.ExecutionRequest;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/** {@code POST /v1/executions}: run a program once and answer with how it went. */
final class ExecutionRoutes {

    private final ExecutionGate gate;
    private final JsonBodies bodies;
    private final ApiRequests requests;

    ExecutionRoutes(ExecutionGate gate, JsonBodies bodies, ApiRequests requests) {
        this.gate = gate;
        this.bodies = bodies;
        this.requests = requests;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/executions", this::execute);
    }

    private void execute(Context ctx) {
        ApiRequests.ExecutionBody body = bodies.strict(ctx, ApiRequests.ExecutionBody.class);
        ExecutionRequest request = requests.execution(body);
        Router.json(ctx, 200, Views.execution(gate.run(request, "api", ExecutionGate.Admission.REFUSE)));
    }
}
