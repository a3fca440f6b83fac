package dev.codeagent.http;

import static dev.codeagent.http.CallerSessions.ID;
import static dev.codeagent.http.CallerSessions.caller;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.session.SessionRefusedException;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.http.CallerSessions.Live;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Duration;

/**
 * Sessions (a real kernel kept across cells, in a sandbox of its own): {@code POST /v1/sessions} opens one,
 * {@code POST /v1/sessions/{id}/cells} runs a cell, {@code …/interrupt} and {@code …/restart} do what they say,
 * {@code GET …/notebook} gives the cells run so far as a notebook, {@code DELETE /v1/sessions/{id}} ends it.
 *
 * <p>The server's {@link OpenSessions} decides: owners (the API key's name), the caps ({@code http.maxSessions},
 * default 4, 0 turns them off; {@code http.maxSessionsPerKey}), the pool ({@code http.sessionPool}), the idle and
 * lifetime clocks. This maps requests onto it and renders its answers: a refusal is 503 naming the setting, another
 * key's id is 404 as for an id that does not exist, an ended session (idle, lifetime, its sandbox lost) answers 404
 * with why. What is the door's own is kept beside each session: its notebook (within {@code http.sessionOutputBudget})
 * and its cells' event journals.
 *
 * <p>The cells' routes are {@link SessionCellRoutes}, the files' {@link SessionFileRoutes}; finding the caller's
 * session and what is kept beside it is {@link CallerSessions}.
 */
final class SessionRoutes implements AutoCloseable {

    /** Body of {@code POST /v1/sessions}: all optional. */
    record OpenBody(Long cellTimeoutMs) {
    }

    private final OpenSessions registry;
    private final CallerSessions sessions;
    private final JsonBodies bodies;
    private final SessionCellRoutes cells;
    private final SessionFileRoutes files;

    /**
     * @param registry the server's sessions, with its places from {@code http.maxSessions}, {@code http.maxSessionsPerKey}
     *     and {@code http.sessionPool}; closed with these routes
     */
    SessionRoutes(OpenSessions registry, JsonBodies bodies, EventStreams streams, long outputBudget) {
        this.registry = registry;
        this.sessions = new CallerSessions(registry, outputBudget);
        this.bodies = bodies;
        this.cells = new SessionCellRoutes(sessions, bodies, streams);
        this.files = new SessionFileRoutes(sessions, bodies);
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/sessions", this::open);
        router.route(HandlerType.POST, "/v1/sessions/{id}/cells", cells::cell);
        router.route(HandlerType.GET, "/v1/sessions/{id}/cells/{n}/events", cells::cellEvents);
        router.route(HandlerType.POST, "/v1/sessions/{id}/interrupt", this::interrupt);
        router.route(HandlerType.POST, "/v1/sessions/{id}/restart", this::restart);
        router.route(HandlerType.GET, "/v1/sessions/{id}/notebook", this::notebook);
        router.route(HandlerType.PUT, "/v1/sessions/{id}/files/<path>", files::putFile);
        router.route(HandlerType.GET, "/v1/sessions/{id}/files/<path>", files::getFile);
        router.route(HandlerType.DELETE, "/v1/sessions/{id}", this::end);
    }

    private void open(Context ctx) {
        OpenBody body = bodies.strict(ctx, OpenBody.class);
        SessionLimits limits = SessionLimits.defaults();
        if (body.cellTimeoutMs() != null) {
            try {
                limits = limits.withCellTimeout(Duration.ofMillis(body.cellTimeoutMs()));
            } catch (IllegalArgumentException e) {
                throw ProblemException.invalid("cellTimeoutMs", e.getMessage());
            }
        }
        OpenSession opened;
        try {
            opened = registry.open(caller(ctx), limits);
        } catch (SessionRefusedException e) {
            throw refusal(e);
        } catch (SandboxUnavailableException e) {
            throw new ProblemException(Type.OVERLOADED, "cannot open a session: " + e.getMessage());
        }
        sessions.kept(opened);
        Session s = opened.session();
        ctx.header("Location", "/v1/sessions/" + s.id());
        ObjectNode view = Views.MAPPER.createObjectNode();
        view.put("id", s.id());
        view.put("cellTimeoutMs", s.limits().cellTimeout().toMillis());
        view.put("memoryBytes", s.limits().memoryBytes());
        Router.json(ctx, 201, view);
    }

    /** The registry's refusal in this server's words: its caps are the http settings. */
    private static ProblemException refusal(SessionRefusedException e) {
        int n = e.limit();
        switch (e.reason()) {
            case OFF:
                return new ProblemException(Type.OVERLOADED, "sessions are turned off on this server (http.maxSessions is 0)");
            case OWNER_FULL:
                // names only what the key holds: the server's count would tell a key how many the other keys hold
                return new ProblemException(Type.OVERLOADED, "this key may hold at most " + n + (n == 1 ? " session" : " sessions")
                        + " live at once (http.maxSessionsPerKey, a share of http.maxSessions); end one first");
            case ALL_FULL:
                return ProblemException.retryLater(Type.OVERLOADED, "every session place is taken (http.maxSessions); try again"
                        + " later", Duration.ofSeconds(5));
            default:
                return new ProblemException(Type.OVERLOADED, "cannot open a session: the server is stopping");
        }
    }

    private void interrupt(Context ctx) {
        sessions.live(ctx).session().interrupt();
        ctx.status(204);
    }

    private void restart(Context ctx) {
        try {
            sessions.live(ctx).open().use(s -> {
                s.restart();
                return null;
            });
        } catch (IllegalStateException e) {
            throw new ProblemException(Type.CONFLICT, e.getMessage());
        }
        ctx.status(204);
    }

    /** Streamed to the client as it is written: never the whole notebook in memory. */
    private void notebook(Context ctx) throws java.io.IOException {
        Live l = sessions.live(ctx);
        ctx.status(200).contentType("application/x-ipynb+json");
        try (java.io.OutputStream out = ctx.outputStream()) {
            l.notebook().writeTo(out);
        }
    }

    private void end(Context ctx) {
        String id = ctx.pathParam("id");
        if (!ID.matcher(id).matches() || !registry.close(caller(ctx), id)) {
            throw new ProblemException(Type.NOT_FOUND, "no session with that id");
        }
        ctx.status(204);
    }

    /** Sessions open now. */
    int live() {
        return registry.live();
    }

    /** Sessions started ahead and waiting in the pool. */
    int ready() {
        return registry.ready();
    }

    /** Ends every live session and every cell stream (the server is stopping). */
    @Override
    public void close() {
        cells.close();
        // every session ends, and with it what is kept beside it (its streams)
        registry.close();
    }
}