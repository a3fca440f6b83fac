package dev.codeagent.application.session;

import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sessions started ahead of need: a kernel takes over a second to start, so once a session has been asked for, the
 * next one (for the pool's limits) is started in the background and handed out whole — its own sandbox, a kernel no
 * cell has touched, its clocks started at hand-out. Never shared, never reused: a pooled session serves one opener
 * and is gone with it; one that ended while it waited (its sandbox lost) is dropped. Requests with other limits are
 * opened as they come. Closing the pool closes the sessions still waiting in it.
 */
public final class PooledSessions implements SessionSandbox, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PooledSessions.class);

    private final SessionSandbox tier;
    private final SessionLimits pooled;
    private final int size;
    private final ExecutorService starter;
    private final Deque<Session> idle = new ArrayDeque<>();
    private int starting;
    private boolean wanted;
    private boolean closed;

    /**
     * @param pooled the limits of the sessions kept ready (a request with these limits is served from the pool)
     * @param size how many to keep ready once sessions have been asked for; 0 pools nothing
     */
    public PooledSessions(SessionSandbox tier, SessionLimits pooled, int size) {
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative, was " + size);
        }
        this.tier = Objects.requireNonNull(tier, "tier");
        this.pooled = Objects.requireNonNull(pooled, "pooled");
        this.size = size;
        this.starter = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "session-pool");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String tier() {
        return tier.tier();
    }

    @Override
    public Session open(SessionLimits limits) {
        Objects.requireNonNull(limits, "limits");
        Session ready = null;
        List<Session> ended = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                throw new SandboxUnavailableException("the session pool is closed");
            }
            wanted = true;
            if (limits.equals(pooled)) {
                while (ready == null && !idle.isEmpty()) {
                    Session s = idle.pollFirst();
                    if (s.endReason().isPresent()) {
                        ended.add(s);
                    } else {
                        ready = s;
                    }
                }
            }
        }
        ended.forEach(Session::close);
        if (ready != null) {
            if (ready instanceof StartedAhead s) {
                s.handedOut();
            }
            refill();
            return ready;
        }
        // the caller's session first: the next one starts once this one is up, not competing with it
        Session opened = tier.open(limits);
        refill();
        return opened;
    }

    /** Sessions waiting in the pool, for tests and metrics. */
    public synchronized int ready() {
        return idle.size();
    }

    private void refill() {
        synchronized (this) {
            if (closed || !wanted || idle.size() + starting >= size) {
                return;
            }
            starting++;
        }
        starter.execute(() -> {
            Session s = null;
            try {
                s = tier.open(pooled);
            } catch (RuntimeException e) {
                log.debug("session pool: could not start a session ahead: {}", e.toString());
            }
            boolean keep;
            synchronized (this) {
                starting--;
                keep = s != null && !closed;
                if (keep) {
                    idle.addLast(s);
                }
            }
            if (s != null && !keep) {
                s.close();
            }
            if (keep) {
                refill();
            }
        });
    }

    /** Closes the sessions waiting in the pool; sessions handed out are their openers' to close. */
    @Override
    public void close() {
        List<Session> waiting;
        synchronized (this) {
            closed = true;
            waiting = new ArrayList<>(idle);
            idle.clear();
        }
        waiting.forEach(Session::close);
        starter.shutdown();
        try {
            // one that is starting now closes itself when it finds the pool closed
            starter.awaitTermination(StartedAhead.START.toSeconds() + 5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
