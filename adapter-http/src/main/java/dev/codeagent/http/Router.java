package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes requests to the handlers of each use case's routes, and turns every failure into an RFC 9457
 * problem document, never a stack trace.
 */
final class Router {

    /** The request attribute naming the matched route, for the metrics. */
    static final String ROUTE = "codeagent.route";
    private static final Logger log = LoggerFactory.getLogger(Router.class);

    private final Javalin app;
    private final ApiMetrics metrics;
    private final List<String> routes = new CopyOnWriteArrayList<>();

    Router(Javalin app, ApiMetrics metrics) {
        this.app = app;
        this.metrics = metrics;
        app.exception(ProblemException.class, (e, ctx) -> problem(ctx, e));
        app.exception(HttpResponseException.class, (e, ctx) -> {
            ProblemException p = Problems.forStatus(e.getStatus(), describeJavalin(e, ctx));
            String allowed = e.getDetails().get("availableMethods");
            if (allowed != null) {
                ctx.header("Allow", allowed);
            }
            problem(ctx, p);
        });
        app.exception(Exception.class, (e, ctx) -> {
            log.error("request {} {} failed (id {})", ctx.method(), ctx.path(), ctx.attribute(RequestGuard.REQUEST_ID), e);
            problem(ctx, new ProblemException(Type.INTERNAL, "internal error; quote request id "
                    + ctx.attribute(RequestGuard.REQUEST_ID) + " when reporting it"));
        });
    }

    void route(HandlerType method, String path, Handler handler) {
        // as the API description writes it: a Javalin <param> (one that may hold slashes) is an OpenAPI {param}
        routes.add(method.name() + " " + path.replaceAll("<([^>]+)>", "{$1}"));
        app.addHttpHandler(method, path, ctx -> {
            ctx.attribute(ROUTE, path);
            handler.handle(ctx);
        });
    }

    /** Every route registered, as {@code METHOD /path/{param}}: what the API description must cover. */
    List<String> routes() {
        return List.copyOf(routes);
    }

    static void json(Context ctx, int status, JsonNode body) {
        ctx.status(status);
        ctx.contentType("application/json");
        try {
            ctx.result(Views.MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private void problem(Context ctx, ProblemException p) {
        ctx.status(p.status());
        if (p.retryAfter() != null) {
            ctx.header("Retry-After", Long.toString(Math.max(1, (p.retryAfter().toMillis() + 999) / 1000)));
        }
        if (p.type() == Type.UNAUTHORIZED) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"codeagent\"");
        }
        if (p.type() == Type.VALIDATION || p.type() == Type.MALFORMED_JSON || p.type() == Type.INVALID_ENCODING
                || p.type() == Type.UNSUPPORTED_LANGUAGE || p.type() == Type.BODY_TOO_LARGE) {
            metrics.rejected(p.type() == Type.BODY_TOO_LARGE ? "too_large" : "invalid");
        }
        ObjectNode body = Problems.body(p, ctx.path(), ctx.path().startsWith("/api/v2"));
        ctx.contentType(Problems.CONTENT_TYPE);
        ctx.result(Problems.json(body));
    }

    private static String describeJavalin(HttpResponseException e, Context ctx) {
        switch (e.getStatus()) {
            case 404:
                return "no such resource: " + JsonBodies.abbreviate(ctx.path(), 200);
            case 405:
                return ctx.method().name().length() > 16 ? "method not allowed here"
                        : ctx.method().name() + " is not allowed here";
            case 413:
                return "the body is too large (http.maxBodyBytes)";
            default:
                return JsonBodies.abbreviate(e.getMessage(), 200);
        }
    }
}
