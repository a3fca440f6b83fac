package dev.codeagent.store.postgres;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes whoever waits on a run (a server-sent event stream, a worker watching for a cancel) when any
 * process sharing the database changes it: one {@code LISTEN} connection per process, however many
 * watchers, and no polling loop per watcher. A lost connection is re-established; after it is, every
 * watcher is told {@link #ANY} (something may have changed meanwhile), so none misses a change.
 */
public final class RunChanges implements AutoCloseable {

    /** Told to watchers when changes may have been missed (the listener reconnected): look again. */
    public static final String ANY = "*";

    private static final Logger log = LoggerFactory.getLogger(RunChanges.class);

    private final PostgresDatabase db;
    private final String channel;
    private final CopyOnWriteArrayList<Consumer<String>> watchers = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private final java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
    private volatile boolean closed;

    RunChanges(PostgresDatabase db) {
        this(db, PostgresDatabase.RUN_CHANNEL);
    }

    RunChanges(PostgresDatabase db, String channel) {
        this.db = db;
        this.channel = channel;
        this.thread = new Thread(this::listen, "codeagent-postgres-listen-" + channel);
        thread.setDaemon(true);
        thread.start();
        // a watcher added after this returns hears every later change: wait for LISTEN to be in force
        try {
            if (!listening.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                LoggerFactory.getLogger(RunChanges.class).warn("run store {}: not yet listening for changes", db.where());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Calls {@code watcher} with the id of every changed run (or {@link #ANY}), on the listener's
     * thread: it must return quickly. Closing the result stops the calls.
     */
    public AutoCloseable watch(Consumer<String> watcher) {
        Objects.requireNonNull(watcher, "watcher");
        watchers.add(watcher);
        return () -> watchers.remove(watcher);
    }

    private void listen() {
        boolean first = true;
        while (!closed) {
            try (Connection c = db.connection(); Statement s = c.createStatement()) {
                s.execute("LISTEN " + channel);
                listening.countDown();
                if (!first) {
                    tell(ANY);
                }
                first = false;
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] got = pg.getNotifications(500);
                    if (got != null) {
                        for (PGNotification n : got) {
                            tell(n.getParameter());
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                log.warn("run store {}: listening for changes failed ({}); reconnecting", db.where(),
                        PostgresDatabase.firstLine(e.getMessage()));
                try {
                    Thread.sleep(500);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void tell(String runId) {
        for (Consumer<String> w : watchers) {
            try {
                w.accept(runId);
            } catch (RuntimeException e) {
                log.warn("a run watcher failed: {}", e.toString());
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
