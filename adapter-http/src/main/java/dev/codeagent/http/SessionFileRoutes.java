package dev.codeagent.http;

import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionEndedException;
import dev.codeagent.domain.session.SessionFileException;
import dev.codeagent.domain.session.SessionFiles;
import dev.codeagent.http.CallerSessions.Live;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;

/** A session's files: {@code PUT} and {@code GET /v1/sessions/{id}/files/<path>}, relative to its working directory. */
final class SessionFileRoutes {

    private final CallerSessions sessions;
    private final JsonBodies bodies;

    SessionFileRoutes(CallerSessions sessions, JsonBodies bodies) {
        this.sessions = sessions;
        this.bodies = bodies;
    }

    /** The body, as it is, becomes the file (at most {@link SessionFiles#MAX_BYTES} and {@code http.maxBodyBytes}). */
    void putFile(Context ctx) {
        String path = filePath(ctx);
        byte[] content = bodies.bytes(ctx);
        Live l = sessions.live(ctx);
        fileCall(l, true, s -> {
            s.writeFile(path, content);
            return null;
        });
        ctx.status(204);
    }

    void getFile(Context ctx) {
        String path = filePath(ctx);
        Live l = sessions.live(ctx);
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
}
