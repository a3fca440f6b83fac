package dev.codeagent.application.session;

import dev.codeagent.domain.session.Session;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session as {@link OpenSessions} holds it: whose it is, when it was opened and last used, and what a door keeps
 * beside it (its notebook, its streams) as attachments that end with it. Work on the session goes through
 * {@link #use}, which is what keeps the idle clock from closing a session while a cell runs. Closing it (its holder is
 * done, or found it ended) closes the session and takes it out of the registry.
 */
public final class OpenSession implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OpenSession.class);

    private final OpenSessions registry;
    private final Session session;
    private final String owner;
    private final Clock clock;
    private final Instant openedAt;
    private final Map<Class<?>, Object> attachments = new LinkedHashMap<>();
    private Instant lastUsed;
    private int busy;
    private String endedBecause;
    private Instant endedAt;

    OpenSession(OpenSessions registry, Session session, String owner, Clock clock) {
        this.registry = registry;
        this.session = session;
        this.owner = owner;
        this.clock = clock;
        this.openedAt = clock.instant();
        this.lastUsed = openedAt;
    }

    /** The session's own id, unguessable. */
    public String id() {
        return session.id();
    }

    /** The caller that opened it. */
    public String owner() {
        return owner;
    }

    /**
     * The session itself, for calls that do not count as use (interrupt, reading its limits); what runs code or moves
     * files goes through {@link #use}.
     */
    public Session session() {
        return session;
    }

    /**
     * Runs {@code call} on the session as use of it: the idle clock does not run meanwhile and starts again when the
     * call returns. The lifetime clock runs regardless.
     */
    public <T> T use(Function<Session, T> call) {
        synchronized (this) {
            busy++;
            lastUsed = clock.instant();
        }
        try {
            return call.apply(session);
        } finally {
            synchronized (this) {
                busy--;
                lastUsed = clock.instant();
            }
        }
    }

    /**
     * What a door keeps beside this session, made on first ask; one of a type. An attachment that is
     * {@link AutoCloseable} is closed when the session is closed by anyone (its owner, a clock, shutdown).
     */
    public synchronized <T> T attachment(Class<T> type, Supplier<? extends T> make) {
        return type.cast(attachments.computeIfAbsent(type, t -> make.get()));
    }

    /** Why the session has ended (closed by the registry's clocks, or ended by itself), or empty while it is live. */
    public Optional<String> endReason() {
        synchronized (this) {
            if (endedBecause != null) {
                return Optional.of(endedBecause);
            }
        }
        return session.endReason();
    }

    /**
     * Closes the session (and what is attached to it) and takes it out of the registry: not found from now on. Also
     * what a door does with a session it found ended, once it has said why. Idempotent.
     */
    @Override
    public void close() {
        registry.remove(this);
        end(endReason().orElse("the session was closed"));
    }

    /** Whether a clock of {@code now} ends this session, and why; null while it may go on. */
    synchronized String expired(Instant now) {
        Duration lifetime = session.limits().maxLifetime();
        if (!now.isBefore(openedAt.plus(lifetime))) {
            return "the session reached its maximum lifetime of " + lifetime.toSeconds() + " s";
        }
        Duration idle = session.limits().idleTimeout();
        if (busy == 0 && !now.isBefore(lastUsed.plus(idle))) {
            return "the session was idle for " + idle.toSeconds() + " s";
        }
        return null;
    }

    /** Closes the session and what is attached to it; {@code why} is what {@link #endReason()} says from now on. */
    void end(String why) {
        List<Object> attached;
        synchronized (this) {
            if (endedBecause == null) {
                endedBecause = why;
                endedAt = clock.instant();
            }
            attached = new ArrayList<>(attachments.values());
        }
        session.close();
        for (Object a : attached) {
            if (a instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.debug("closing what was kept beside session {} failed", id(), e);
                }
            }
        }
    }

    /** When the registry ended it, or null while it has not. */
    synchronized Instant endedAt() {
        return endedAt;
    }
}
