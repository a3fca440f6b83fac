package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.execute.ExecuteCode;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /health} (liveness and readiness, for anyone; details and counts only for operators) and
 * {@code GET /metrics} (Prometheus text; operators and keys naming the metrics group, see {@link RequestGuard}).
 */
final class HealthRoutes {

    private final HealthCheck health;
    private final ExecuteCode executeCode;
    private final String tier;
    private final String storeKind;
    private final RunService runs;
    private final ApiMetrics metrics;
    private final RequestGuard guard;
    private final BooleanSupplier stopping;

    HealthRoutes(HealthCheck health, ExecuteCode executeCode, String tier, String storeKind, RunService runs, ApiMetrics metrics,
            RequestGuard guard, BooleanSupplier stopping) {
        this.health = health;
        this.executeCode = executeCode;
        this.tier = tier;
        this.storeKind = storeKind;
        this.runs = runs;
        this.metrics = metrics;
        this.guard = guard;
        this.stopping = stopping;
    }

    void register(Router router) {
        router.route(HandlerType.GET, "/health", this::health);
        router.route(HandlerType.GET, "/metrics", ctx -> {
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8");
            ctx.result(metrics.scrape());
        });
    }

    private void health(Context ctx) throws InterruptedException {
        HealthCheck.Status s = health.current(Duration.ofSeconds(5));
        // /health answers anyone whether the server is up and ready, what a load balancer needs. The rest only an
        // operator: why a check failed (error texts that may name files and hosts), and the counts of work in progress,
        // which are every key's together: from them one tenant would learn when and how much another works
        boolean operator = guard.operator(ctx);
        boolean shuttingDown = stopping.getAsBoolean();
        boolean ready = s.ready() && !shuttingDown;
        ObjectNode body = Views.MAPPER.createObjectNode();
        body.put("status", ready ? "UP" : "DOWN");
        body.put("live", true);
        body.put("ready", ready);
        body.put("shuttingDown", shuttingDown);
        ObjectNode sandbox = body.putObject("sandbox");
        sandbox.put("tier", tier);
        sandbox.put("ok", s.sandboxOk());
        ObjectNode store = body.putObject("store");
        store.put("kind", storeKind);
        store.put("ok", s.storeOk());
        if (operator) {
            sandbox.put("detail", s.sandboxDetail());
            sandbox.put("probeMs", s.probeMillis());
            sandbox.put("checkedAt", s.checkedAt().toString());
            sandbox.put("running", executeCode.running());
            sandbox.put("maxConcurrent", executeCode.maxConcurrent());
            store.put("detail", s.storeDetail());
            ObjectNode runsNode = body.putObject("runs");
            runsNode.put("active", runs.active());
            runsNode.put("max", runs.maxRuns());
        }
        Router.json(ctx, ready ? 200 : 503, body);
    }
}
