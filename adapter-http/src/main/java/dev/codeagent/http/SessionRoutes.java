package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.session.Notebook;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.application.session.SessionRefusedException;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.domain.session.SessionFileException;
import dev.codeagent.domain.session.SessionFiles;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

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
 */
final class SessionRoutes implements AutoCloseable {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    /** Body of {@code POST /v1/sessions}: all optional. */
    record OpenBody(Long cellTimeoutMs) {
    }

    /** Body of {@code POST /v1/sessions/{id}/cells}. */
    record CellBody(String code) {
    }

    /** How many cells' event journals a session keeps for resuming their streams. */
    static final int KEPT_JOURNALS = 4;

    /** What this door keeps beside a session; its streams end when the session is closed, by anyone. */
    private record Kept(Notebook notebook, java.util.concurrent.atomic.AtomicInteger cells,
            java.util.concurrent.atomic.AtomicBoolean running, Map<Integer, CellJournal> journals) implements AutoCloseable {

        Kept(long outputBudget) {
            this(new Notebook(outputBudget), new java.util.concurrent.atomic.AtomicInteger(),
                    new java.util.concurrent.atomic.AtomicBoolean(), java.util.Collections.synchronizedMap(
                            new java.util.LinkedHashMap<>(8, 0.75f, false) {
                                @Override
                                protected boolean removeEldestEntry(Map.Entry<Integer, CellJournal> eldest) {
                                    return size() > KEPT_JOURNALS;
                                }
                            }));
        }

        @Override
        public void close() {
            synchronized (journals) {
                journals.values().forEach(CellJournal::close);
            }
        }
    }

    /** A session of the caller's and what this door keeps beside it. */
    private record Live(OpenSession open, Kept kept) {

        Session session() {
            return open.session();
        }

        Notebook notebook() {
            return kept.notebook();
        }

        java.util.concurrent.atomic.AtomicInteger cells() {
            return kept.cells();
        }

        java.util.concurrent.atomic.AtomicBoolean running() {
            return kept.running();
        }

        Map<Integer, CellJournal> journals() {
            return kept.journals();
        }
    }

    /** The key a request came with, or "" when auth is off (then every caller is the same one). */
    private static String caller(Context ctx) {
        String name = ctx.attribute(RequestGuard.KEY_NAME);
        return name == null ? "" : name;
    }

    private final OpenSessions registry;
    private final JsonBodies bodies;
    private final EventStreams streams;
    /** Runs streamed cells, so that a client that goes away does not take its cell with it. */
    private final java.util.concurrent.ExecutorService cellThreads = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "session-cell");
        t.setDaemon(true);
        return t;
    });
    /** {@code http.sessionOutputBudget}: what one session's notebook holds. */
    private final long outputBudget;

    /**
     * @param registry the server's sessions, with its places from {@code http.maxSessions}, {@code http.maxSessionsPerKey}
     *     and {@code http.sessionPool}; closed with these routes
     */
    SessionRoutes(OpenSessions registry, JsonBodies bodies, EventStreams streams, long outputBudget) {
        this.registry = registry;
        this.outputBudget = outputBudget;
        this.bodies = bodies;
        this.streams = streams;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/sessions", this::open);
        router.route(HandlerType.POST, "/v1/sessions/{id}/cells", this::cell);
        router.route(HandlerType.GET, "/v1/sessions/{id}/cells/{n}/events", this::cellEvents);
        router.route(HandlerType.POST, "/v1/sessions/{id}/interrupt", this::interrupt);
        router.route(HandlerType.POST, "/v1/sessions/{id}/restart", this::restart);
        router.route(HandlerType.GET, "/v1/sessions/{id}/notebook", this::notebook);
        router.route(HandlerType.PUT, "/v1/sessions/{id}/files/<path>", this::putFile);
        router.route(HandlerType.GET, "/v1/sessions/{id}/files/<path>", this::getFile);
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
        kept(opened);
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

    private Kept kept(OpenSession s) {
        return s.attachment(Kept.class, () -> new Kept(outputBudget));
    }

    /** The caller's session named in the path; to any other caller it does not exist. */
    private Live owned(Context ctx) {
        String id = ctx.pathParam("id");
        OpenSession s = ID.matcher(id).matches() ? registry.find(caller(ctx), id).orElse(null) : null;
        if (s == null) {
            throw new ProblemException(Type.NOT_FOUND, "no session with that id");
        }
        return new Live(s, kept(s));
    }

    /** The caller's session, which must still be live: an ended one is removed and answers with why. */
    private Live live(Context ctx) {
        Live l = owned(ctx);
        java.util.Optional<String> ended = l.open().endReason();
        if (ended.isPresent()) {
            l.open().close();
            throw new ProblemException(Type.NOT_FOUND, "the session has ended: " + ended.get());
        }
        return l;
    }

    private void cell(Context ctx) {
        CellBody body = bodies.strict(ctx, CellBody.class);
        if (body.code() == null) {
            throw ProblemException.invalid("code", "required: the cell's source");
        }
        Cell cell;
        try {
            cell = new Cell(body.code());
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid("code", e.getMessage());
        }
        Live l = live(ctx);
        if (!l.running().compareAndSet(false, true)) {
            throw new ProblemException(Type.CONFLICT, "a cell of session " + l.session().id() + " is already running");
        }
        int n = l.cells().incrementAndGet();
        String accept = ctx.header("Accept");
        if (accept != null && accept.contains("text/event-stream")) {
            streamed(ctx, l, cell, n);
            return;
        }
        CellResult r;
        try {
            r = l.open().use(s -> s.execute(cell));
        } catch (SessionEndedException e) {
            l.open().close();
            throw new ProblemException(Type.NOT_FOUND, e.getMessage());
        } catch (IllegalStateException e) {
            throw new ProblemException(Type.CONFLICT, e.getMessage());
        } finally {
            l.running().set(false);
        }
        l.notebook().add(cell, r);
        Router.json(ctx, 200, view(r));
    }

    /**
     * Runs the cell on a thread of its own and streams its events: each output as it comes, then the result. The
     * cell goes on if the client goes away; {@code GET …/cells/{n}/events} with {@code Last-Event-ID} picks the
     * stream up again (named in the {@code Location} header).
     */
    private void streamed(Context ctx, Live l, Cell cell, int n) {
        try {
            streams.acquire();
        } catch (ProblemException e) {
            l.running().set(false);
            throw e;
        }
        CellJournal journal = new CellJournal();
        l.journals().put(n, journal);
        try {
            cellThreads.execute(() -> runCell(l, cell, journal));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            l.running().set(false);
            journal.end("failed", failure(503, "the server is stopping"));
        }
        ctx.header("Location", "/v1/sessions/" + l.session().id() + "/cells/" + n + "/events");
        streams.stream(ctx.res(), journal, 0);
    }

    private void runCell(Live l, Cell cell, CellJournal journal) {
        try {
            CellResult r = l.open().use(s -> s.execute(cell, o -> journal.output(output(o))));
            l.notebook().add(cell, r);
            journal.end("result", view(r));
        } catch (SessionEndedException e) {
            l.open().close();
            journal.end("failed", failure(404, e.getMessage()));
        } catch (IllegalStateException e) {
            journal.end("failed", failure(409, e.getMessage()));
        } catch (RuntimeException e) {
            journal.end("failed", failure(500, "the cell could not be run: " + e.getMessage()));
        } finally {
            l.running().set(false);
        }
    }

    private static ObjectNode failure(int status, String detail) {
        return Views.MAPPER.createObjectNode().put("status", status).put("detail", detail);
    }

    private void cellEvents(Context ctx) {
        Live l = owned(ctx);
        String raw = ctx.pathParam("n");
        CellJournal journal = raw.matches("[0-9]{1,9}") ? l.journals().get(Integer.parseInt(raw)) : null;
        if (journal == null) {
            throw new ProblemException(Type.NOT_FOUND, "no streamed cell " + raw + " in this session (the last "
                    + KEPT_JOURNALS + " streamed cells are kept)");
        }
        long lastId = RunRoutes.lastEventId(ctx);
        if (journal.seenToTheEnd(lastId)) {
            // nothing more will come: 204 is what makes an EventSource stop reconnecting
            ctx.status(204);
            return;
        }
        streams.acquire();
        streams.stream(ctx.res(), journal, lastId);
    }

    private void interrupt(Context ctx) {
        live(ctx).session().interrupt();
        ctx.status(204);
    }

    private void restart(Context ctx) {
        try {
            live(ctx).open().use(s -> {
                s.restart();
                return null;
            });
        } catch (IllegalStateException e) {
            throw new ProblemException(Type.CONFLICT, e.getMessage());
        }
        ctx.status(204);
    }

    /** The body, as it is, becomes the file (at most {@link SessionFiles#MAX_BYTES} and {@code http.maxBodyBytes}). */
    private void putFile(Context ctx) {
        String path = filePath(ctx);
        byte[] content = bodies.bytes(ctx);
        Live l = live(ctx);
        fileCall(l, true, s -> {
            s.writeFile(path, content);
            return null;
        });
        ctx.status(204);
    }

    private void getFile(Context ctx) {
        String path = filePath(ctx);
        Live l = live(ctx);
        byte[] content = fileCall(l, false, s -> s.readFile(path, SessionFiles.MAX_BYTES));
        ctx.status(200).contentType("application/octet-stream").result(content);
    }

    private static String filePath(Context ctx) {
        String path = ctx.pathParam("path");
        try {
            return SessionFiles.requireRelative(path);
        } catch (SessionFileException e) {
            throw ProblemException.invalid("path", e.getMessage());
        }
    }

    /** @param upload whether the file came with the request (too large is then 413, else 409: the file is the problem) */
    private <T> T fileCall(Live l, boolean upload, java.util.function.Function<Session, T> call) {
        try {
            return l.open().use(call);
        } catch (SessionFileException e) {
            switch (e.reason()) {
                case INVALID:
                    throw ProblemException.invalid("path", e.getMessage());
                case NOT_FOUND:
                    throw new ProblemException(Type.NOT_FOUND, e.getMessage());
                case TOO_LARGE:
                    throw new ProblemException(upload ? Type.BODY_TOO_LARGE : Type.CONFLICT, e.getMessage());
                default:
                    throw new ProblemException(Type.INTERNAL, e.getMessage());
            }
        } catch (SessionEndedException e) {
            l.open().close();
            throw new ProblemException(Type.NOT_FOUND, e.getMessage());
        } catch (IllegalStateException e) {
            throw new ProblemException(Type.CONFLICT, e.getMessage());
        }
    }

    /** Streamed to the client as it is written: never the whole notebook in memory. */
    private void notebook(Context ctx) throws java.io.IOException {
        Live l = live(ctx);
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

    static ObjectNode view(CellResult r) {
        ObjectNode n = Views.MAPPER.createObjectNode();
        n.put("status", r.status().name());
        n.put("executionCount", r.executionCount());
        n.put("durationMs", r.duration().toMillis());
        n.put("stateLost", r.stateLost());
        n.put("message", r.message());
        ArrayNode outputs = n.putArray("outputs");
        for (CellOutput o : r.outputs()) {
            outputs.add(output(o));
        }
        return n;
    }

    /** An output as a client sees it: rich data only as {@link OutputSanitizer} lets it out of the sandbox. */
    static ObjectNode output(CellOutput raw) {
        CellOutput o = OutputSanitizer.output(raw);
        ObjectNode out = Views.MAPPER.createObjectNode();
        if (o instanceof CellOutput.Stream s) {
            out.put("type", "stream").put("name", s.name()).put("text", s.text());
        } else if (o instanceof CellOutput.DisplayData d) {
            out.put("type", "display_data").set("data", Views.MAPPER.valueToTree(d.data().data()));
        } else if (o instanceof CellOutput.ExecuteResult e) {
            out.put("type", "execute_result").put("executionCount", e.executionCount())
                    .set("data", Views.MAPPER.valueToTree(e.data().data()));
        } else if (o instanceof CellOutput.Error e) {
            out.put("type", "error").put("name", e.name()).put("value", e.value())
                    .set("traceback", Views.MAPPER.valueToTree(e.traceback()));
        }
        return out;
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
        cellThreads.shutdown();
        // every session ends, and with it what is kept beside it (its streams)
        registry.close();
    }
}
