package dev.codeagent.http;

import static dev.codeagent.http.CallerSessions.KEPT_JOURNALS;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.session.OutputSanitizer;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellOutput;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.http.CallerSessions.Live;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;

/**
 * A session's cells: {@code POST /v1/sessions/{id}/cells} runs one (answered when it is done, or streamed as its
 * outputs come with {@code Accept: text/event-stream}), {@code GET …/cells/{n}/events} picks a stream up again.
 */
final class SessionCellRoutes implements AutoCloseable {

    /** Body of {@code POST /v1/sessions/{id}/cells}. */
    record CellBody(String code) {
    }

    private final CallerSessions sessions;
    private final JsonBodies bodies;
    private final EventStreams streams;
    /** Runs streamed cells, so that a client that goes away does not take its cell with it. */
    private final java.util.concurrent.ExecutorService cellThreads = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "session-cell");
        t.setDaemon(true);
        return t;
    });

    SessionCellRoutes(CallerSessions sessions, JsonBodies bodies, EventStreams streams) {
        this.sessions = sessions;
        this.bodies = bodies;
        this.streams = streams;
    }

    void cell(Context ctx) {
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
        Live l = sessions.live(ctx);
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

    void cellEvents(Context ctx) {
        Live l = sessions.owned(ctx);
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

    /** Streamed cells still running go on until their sessions end; no new ones start. */
    @Override
    public void close() {
        cellThreads.shutdown();
    }
}
