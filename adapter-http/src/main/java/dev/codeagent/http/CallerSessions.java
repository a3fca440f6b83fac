package dev.codeagent.http;

import dev.codeagent.application.session.Notebook;
import dev.codeagent.application.session.OpenSession;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.domain.session.Session;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The sessions of the caller of a request, as this door sees them: a session is found by its id among the caller's
 * own (another key's is as absent as one that never was), and beside each the door keeps its notebook and its cells'
 * event journals.
 */
final class CallerSessions {

    static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");

    /** How many cells' event journals a session keeps for resuming their streams. */
    static final int KEPT_JOURNALS = 4;

    /** What this door keeps beside a session; its streams end when the session is closed, by anyone. */
    record Kept(Notebook notebook, java.util.concurrent.atomic.AtomicInteger cells,
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
    record Live(OpenSession open, Kept kept) {

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
    static String caller(Context ctx) {
        String name = ctx.attribute(RequestGuard.KEY_NAME);
        return name == null ? "" : name;
    }

    private final OpenSessions registry;
    /** {@code http.sessionOutputBudget}: what one session's notebook holds. */
    private final long outputBudget;

    CallerSessions(OpenSessions registry, long outputBudget) {
        this.registry = registry;
        this.outputBudget = outputBudget;
    }

    Kept kept(OpenSession s) {
        return s.attachment(Kept.class, () -> new Kept(outputBudget));
    }

    /** The caller's session named in the path; to any other caller it does not exist. */
    Live owned(Context ctx) {
        String id = ctx.pathParam("id");
        OpenSession s = ID.matcher(id).matches() ? registry.find(caller(ctx), id).orElse(null) : null;
        if (s == null) {
            throw new ProblemException(Type.NOT_FOUND, "no session with that id");
        }
        return new Live(s, kept(s));
    }

    /** The caller's session, which must still be live: an ended one is removed and answers with why. */
    Live live(Context ctx) {
        Live l = owned(ctx);
        java.util.Optional<String> ended = l.open().endReason();
        if (ended.isPresent()) {
            l.open().close();
            throw new ProblemException(Type.NOT_FOUND, "the session has ended: " + ended.get());
        }
        return l;
    }
}
