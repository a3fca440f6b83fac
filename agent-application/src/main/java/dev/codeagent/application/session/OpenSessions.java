package dev.codeagent.application.session;

import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.session.SessionRefusedException.Reason;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sessions this process holds, for every door (HTTP, the command line, the Jupyter kernel): opens a session for
 * an owner (a caller identity: an API key's name, a local user, the kernel) within the caps of {@link SessionPlaces},
 * finds one only by its owner (to anyone else an id is "not found": never "forbidden", so an id is no oracle), closes
 * and lists an owner's sessions, serves opens from the warm {@link PooledSessions}, closes sessions left idle or past
 * their lifetime by its own clock (each session's {@link SessionLimits#idleTimeout()} and
 * {@link SessionLimits#maxLifetime()}, whatever the tier watches itself), and closes them all when it is closed.
 *
 * <p>A session's place is taken from the moment its open is asked for (so that two opens at once cannot both take the
 * last place) and given back when it ends; an ended session is still found, with why, for {@link #KEEP_ENDED}.
 */
public final class OpenSessions implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OpenSessions.class);

    /** How long an ended session is still found (answering why it ended) before it is "not found". */
    public static final Duration KEEP_ENDED = Duration.ofMinutes(1);
    /** How often the clocks are read; a session outlives its idle time or lifetime by at most this. */
    static final Duration SWEEP_EVERY = Duration.ofSeconds(1);

    private final Optional<SessionSandbox> tier;
    private final Supplier<String> tierName;
    private final SessionPlaces places;
    private final Clock clock;
    private final PooledSessions pool;
    private final Map<String, OpenSession> sessions = new HashMap<>();
    private final Map<String, Integer> opening = new HashMap<>();
    private ScheduledExecutorService clocks;
    private boolean closed;

    /** As the composition makes it: closed with the composition, before the sandbox its sessions live in. */
    @Inject
    public OpenSessions(Optional<SessionSandbox> tier, Provider<Sandbox> sandbox, SessionPlaces places, Clock clock,
            Closer closer) {
        this(tier, () -> sandbox.get().tier(), places, clock);
        closer.register(this);
    }

    /** @param tierName the tier in use, named when it hosts no sessions */
    public OpenSessions(Optional<SessionSandbox> tier, String tierName, SessionPlaces places, Clock clock) {
        this(tier, () -> tierName, places, clock);
    }

    private OpenSessions(Optional<SessionSandbox> tier, Supplier<String> tierName, SessionPlaces places, Clock clock) {
        this.tier = Objects.requireNonNull(tier, "tier");
        this.tierName = Objects.requireNonNull(tierName, "tierName");
        this.places = Objects.requireNonNull(places, "places");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.pool = tier.isPresent() && places.on() && places.pool() > 0
                ? new PooledSessions(tier.get(), SessionLimits.defaults(), places.pool()) : null;
    }

    /** The caps this registry keeps. */
    public SessionPlaces places() {
        return places;
    }

    /**
     * Opens a session for {@code owner}, in a sandbox of its own of the configured tier.
     *
     * @throws SessionRefusedException when sessions are off, the owner holds its share, or every place is taken
     * @throws SandboxUnavailableException when the tier hosts no sessions (one line naming it) or cannot start one
     */
    public OpenSession open(String owner, SessionLimits limits) {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(limits, "limits");
        synchronized (this) {
            if (closed) {
                throw new SessionRefusedException(Reason.CLOSED, 0, "sessions are closed: this process is stopping");
            }
            if (!places.on()) {
                throw new SessionRefusedException(Reason.OFF, 0, "sessions are turned off here (at most 0 sessions)");
            }
            if (tier.isEmpty()) {
                throw new SandboxUnavailableException("the " + tierName.get() + " sandbox hosts no sessions; set sandbox.kind:"
                        + " process or docker for sessions");
            }
            // the owner's own cap first, and a refusal that names only what the owner holds: were the total in it, an
            // owner opening until refused would learn how many sessions the others hold
            int mine = opening.getOrDefault(owner, 0)
                    + (int) sessions.values().stream().filter(s -> s.owner().equals(owner) && live(s)).count();
            if (mine >= places.perOwner()) {
                throw new SessionRefusedException(Reason.OWNER_FULL, places.perOwner(), "this owner may hold at most "
                        + sessionsWord(places.perOwner()) + " live at once; end one first");
            }
            int all = opening.values().stream().mapToInt(Integer::intValue).sum()
                    + (int) sessions.values().stream().filter(OpenSessions::live).count();
            if (all >= places.max()) {
                throw new SessionRefusedException(Reason.ALL_FULL, places.max(), "every session place is taken (at most "
                        + sessionsWord(places.max()) + "); try again later");
            }
            opening.merge(owner, 1, Integer::sum);
        }
        Session s;
        try {
            s = (pool != null ? pool : tier.get()).open(limits);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                giveBack(owner);
            }
            throw e;
        }
        OpenSession made = null;
        synchronized (this) {
            giveBack(owner);
            if (!closed) {
                made = new OpenSession(this, s, owner, clock);
                sessions.put(s.id(), made);
                startClocks();
            }
        }
        if (made == null) {
            s.close();
            throw new SessionRefusedException(Reason.CLOSED, 0, "sessions are closed: this process is stopping");
        }
        return made;
    }

    /** The place an open took while it ran; the caller holds this. */
    private void giveBack(String owner) {
        opening.computeIfPresent(owner, (k, n) -> n == 1 ? null : n - 1);
    }

    private static String sessionsWord(int n) {
        return n + (n == 1 ? " session" : " sessions");
    }

    private static boolean live(OpenSession s) {
        return s.endReason().isEmpty();
    }

    /**
     * The owner's session of that id, live or ended (then {@link OpenSession#endReason()} says why); empty for an id
     * that does not exist, has been forgotten, or is another owner's: the two are not told apart.
     */
    public synchronized Optional<OpenSession> find(String owner, String id) {
        OpenSession s = sessions.get(id);
        return s != null && s.owner().equals(owner) ? Optional.of(s) : Optional.empty();
    }

    /** The owner's live sessions, oldest first is not promised. */
    public synchronized List<OpenSession> list(String owner) {
        return sessions.values().stream().filter(s -> s.owner().equals(owner) && live(s)).toList();
    }

    /** Closes the owner's session of that id; false when the owner has none of that id (or it was already gone). */
    public boolean close(String owner, String id) {
        OpenSession s;
        synchronized (this) {
            s = sessions.get(id);
            if (s == null || !s.owner().equals(owner)) {
                return false;
            }
        }
        s.close();
        return true;
    }

    /** Takes a session out (its {@link OpenSession#close()} closes it). */
    synchronized void remove(OpenSession s) {
        sessions.remove(s.id(), s);
    }

    /** Sessions live now, over every owner. */
    public synchronized int live() {
        return (int) sessions.values().stream().filter(OpenSessions::live).count();
    }

    /** Sessions started ahead and waiting in the pool. */
    public int ready() {
        return pool == null ? 0 : pool.ready();
    }

    /**
     * Reads the clocks once: closes the sessions idle past their idle time (none while a call {@link OpenSession#use}s
     * it) or open past their lifetime, and forgets the ones ended longer than {@link #KEEP_ENDED} ago. Called every
     * {@link #SWEEP_EVERY} once a session has been opened; tests call it with a clock of their own.
     */
    public void sweep() {
        Instant now = clock.instant();
        Map<OpenSession, String> toEnd = new HashMap<>();
        synchronized (this) {
            sessions.values().removeIf(s -> s.endedAt() != null && !now.isBefore(s.endedAt().plus(KEEP_ENDED)));
            for (OpenSession s : sessions.values()) {
                if (s.endedAt() != null) {
                    continue;
                }
                String why = s.session().endReason().orElseGet(() -> s.expired(now));
                if (why != null) {
                    toEnd.put(s, why);
                }
            }
        }
        toEnd.forEach((s, why) -> {
            log.info("session {} of {}: {}", s.id(), s.owner().isEmpty() ? "(no key)" : s.owner(), why);
            s.end(why);
        });
    }

    /** The caller holds this. */
    private void startClocks() {
        if (clocks != null) {
            return;
        }
        clocks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "session-clocks");
            t.setDaemon(true);
            return t;
        });
        clocks.scheduleWithFixedDelay(() -> {
            try {
                sweep();
            } catch (RuntimeException e) {
                log.warn("reading the session clocks failed", e);
            }
        }, SWEEP_EVERY.toMillis(), SWEEP_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Closes every session (and what doors kept beside them) and the pool; opens are refused from now on. */
    @Override
    public void close() {
        List<OpenSession> all;
        ScheduledExecutorService c;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(sessions.values());
            sessions.clear();
            c = clocks;
        }
        if (c != null) {
            c.shutdownNow();
        }
        all.forEach(s -> s.end("the session was closed: this process is stopping"));
        if (pool != null) {
            pool.close();
        }
    }
}
