package dev.codeagent.store.postgres;

import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The {@link WorkQueue} of the processes sharing one PostgreSQL database: the {@code work} table beside the
 * {@link PostgresRunLog}'s runs. Claims take the oldest waiting run with {@code FOR UPDATE SKIP LOCKED}, so
 * concurrent claimers never block on each other nor get the same run; a claim's lease is its holder's heartbeat
 * (store.postgres.leaseTimeout), and a run whose holder stopped beating is taken over or ended as
 * {@code store.postgres.onLeaseLoss} says. Queueing a run records it in the run log first.
 */
public final class PostgresWorkQueue implements WorkQueue, AutoCloseable {

    static final String WORK_CHANNEL = "codeagent_work";
    static final String CANCEL_CHANNEL = "codeagent_cancel";

    private final PostgresDatabase db;
    private final PostgresRunLog runs;
    private final Clock clock;
    private final Semaphore workSignal = new Semaphore(0);
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private RunChanges workChanges; // guarded by this
    private RunChanges cancelChanges; // guarded by this
    private RunChanges runChanges; // guarded by this

    PostgresWorkQueue(PostgresDatabase db, PostgresRunLog runs, Clock clock) {
        this.db = db;
        this.runs = runs;
        this.clock = clock;
    }

    @Override
    public void enqueue(Run run) {
        runs.started(run);
        db.transaction("queue run " + run.id(), (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO work (run_id, state) VALUES (?, 'queued')"
                    + " ON CONFLICT (run_id) DO NOTHING")) {
                s.setString(1, run.id());
                s.executeUpdate();
            }
            PostgresDatabase.notify(c, WORK_CHANNEL, run.id());
            return null;
        });
    }

    @Override
    public Optional<Claim> claim() {
        boolean takeover = db.config().onLeaseLoss() == PostgresStoreConfig.LeaseLoss.TAKEOVER;
        if (!takeover) {
            endLostClaims();
        }
        while (true) {
            Optional<Claim> claim = db.transaction("claim queued work", (c, retry) -> {
                String runId = null;
                int times = 0;
                String cancelled = null;
                if (retry > 0) {
                    // the connection broke around the commit: a claim this process made but never heard of is its own
                    try (PreparedStatement s = c.prepareStatement("SELECT run_id, claims, cancel_reason FROM work"
                            + " WHERE claimed_by = ? AND state = 'claimed' AND NOT (run_id = ANY (?)) ORDER BY claimed_at DESC LIMIT 1")) {
                        s.setObject(1, db.ownerId());
                        s.setArray(2, c.createArrayOf("text", held.toArray()));
                        try (ResultSet r = s.executeQuery()) {
                            if (r.next()) {
                                runId = r.getString(1);
                                times = r.getInt(2);
                                cancelled = r.getString(3);
                            }
                        }
                    }
                }
                if (runId == null) {
                    try (PreparedStatement s = c.prepareStatement("WITH next AS (SELECT w.run_id FROM work w"
                            + " WHERE w.state = 'queued' OR (? AND w.state = 'claimed' AND NOT EXISTS (SELECT 1 FROM run_owners o"
                            + " WHERE o.id = w.claimed_by AND " + PostgresDatabase.ALIVE + "))"
                            + " ORDER BY w.seq LIMIT 1 FOR UPDATE SKIP LOCKED)"
                            + " UPDATE work w SET state = 'claimed', claimed_by = ?, claimed_at = now(), claims = w.claims + 1"
                            + " FROM next WHERE w.run_id = next.run_id RETURNING w.run_id, w.claims, w.cancel_reason")) {
                        s.setBoolean(1, takeover);
                        s.setObject(2, db.ownerId());
                        try (ResultSet r = s.executeQuery()) {
                            if (!r.next()) {
                                return Optional.<Optional<Claim>>empty();
                            }
                            runId = r.getString(1);
                            times = r.getInt(2);
                            cancelled = r.getString(3);
                        }
                    }
                }
                try (PreparedStatement s = c.prepareStatement("UPDATE runs SET owner_id = ? WHERE id = ?")) {
                    s.setObject(1, db.ownerId());
                    s.setString(2, runId);
                    s.executeUpdate();
                }
                Run run = runs.stored().find(c, runId).orElseThrow();
                if (cancelled != null || run.status().isFinal()) {
                    // cancelled while its holder was dying, or ended just before: nothing left to work
                    if (!run.status().isFinal()) {
                        endRun(c, runId, RunStatus.CANCELLED, PostgresRunLog.seconds(clock.instant()), cancelled);
                    }
                    markDone(c, runId);
                    return Optional.of(Optional.<Claim>empty());
                }
                held.add(runId);
                return Optional.of(Optional.of(new Claim(run, times)));
            }).orElse(null);
            if (claim == null) {
                return Optional.empty();
            }
            if (claim.isPresent()) {
                return claim;
            }
        }
    }

    /** Under {@code onLeaseLoss: ERROR}: ends the runs whose holder stopped beating, saying so. */
    private void endLostClaims() {
        BigDecimal now = PostgresRunLog.seconds(clock.instant());
        db.transaction("end runs whose worker lost its lease", (c, retry) -> {
            List<String[]> lost = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("SELECT w.run_id, o.host, o.pid, o.lease_seconds FROM work w"
                    + " LEFT JOIN run_owners o ON o.id = w.claimed_by WHERE w.state = 'claimed'"
                    + " AND (o.id IS NULL OR NOT (" + PostgresDatabase.ALIVE + "))"
                    + " FOR UPDATE OF w SKIP LOCKED")) {
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        lost.add(new String[] {r.getString(1), r.getString(2) == null ? "?" : r.getString(2) + " pid " + r.getLong(3),
                                r.getString(2) == null ? "its lease" : Math.round(r.getDouble(4) * 1000) + " ms"});
                    }
                }
            }
            for (String[] l : lost) {
                endRun(c, l[0], RunStatus.ERROR, now, "its worker (" + l[1] + ") stopped beating its heartbeat for "
                        + l[2] + " and lost its lease; not taken over (store.postgres.onLeaseLoss: ERROR)");
                markDone(c, l[0]);
            }
            return null;
        });
    }

    private static void endRun(Connection c, String runId, RunStatus status, BigDecimal at, String reason) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE runs SET status = ?, ended_at = ?, reason = ? WHERE id = ? AND status = 'RUNNING'")) {
            s.setString(1, status.name());
            s.setBigDecimal(2, at);
            s.setString(3, reason);
            s.setString(4, runId);
            s.executeUpdate();
        }
        PostgresRunLog.notifyChange(c, runId);
    }

    private static void markDone(Connection c, String runId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE work SET state = 'done' WHERE run_id = ?")) {
            s.setString(1, runId);
            s.executeUpdate();
        }
    }

    @Override
    public boolean awaitWork(Duration max) throws InterruptedException {
        synchronized (this) {
            if (workChanges == null) {
                workChanges = new RunChanges(db, WORK_CHANNEL);
                workChanges.watch(id -> workSignal.release());
            }
        }
        boolean woke = workSignal.tryAcquire(max.toMillis(), TimeUnit.MILLISECONDS);
        workSignal.drainPermits();
        return woke;
    }

    @Override
    public Follower follow(String runId) {
        Objects.requireNonNull(runId, "runId");
        RunChanges changes;
        synchronized (this) {
            if (runChanges == null) {
                runChanges = new RunChanges(db);
            }
            changes = runChanges;
        }
        Semaphore changed = new Semaphore(0);
        AutoCloseable watch = changes.watch(id -> {
            if (id.equals(runId) || RunChanges.ANY.equals(id)) {
                changed.release();
            }
        });
        return new Follower() {
            @Override
            public boolean await(Duration max) throws InterruptedException {
                boolean got = changed.tryAcquire(max.toMillis(), TimeUnit.MILLISECONDS);
                changed.drainPermits();
                return got;
            }

            @Override
            public void close() {
                try {
                    watch.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }
        };
    }

    @Override
    public void finished(String runId) {
        held.remove(runId);
        db.transaction("let go of run " + runId, (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("UPDATE work SET state = 'done' WHERE run_id = ? AND claimed_by = ?")) {
                s.setString(1, runId);
                s.setObject(2, db.ownerId());
                s.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public boolean cancel(String runId, String reason) {
        Objects.requireNonNull(reason, "reason");
        BigDecimal now = PostgresRunLog.seconds(clock.instant());
        return db.transaction("cancel run " + runId, (c, retry) -> {
            String state;
            try (PreparedStatement s = c.prepareStatement("SELECT state FROM work WHERE run_id = ? FOR UPDATE")) {
                s.setString(1, runId);
                try (ResultSet r = s.executeQuery()) {
                    state = r.next() ? r.getString(1) : null;
                }
            }
            if (state == null || state.equals("done")) {
                return false;
            }
            if (state.equals("queued")) {
                endRun(c, runId, RunStatus.CANCELLED, now, reason);
                markDone(c, runId);
                return true;
            }
            try (PreparedStatement s = c.prepareStatement("UPDATE work SET cancel_reason = ? WHERE run_id = ?")) {
                s.setString(1, reason);
                s.setString(2, runId);
                s.executeUpdate();
            }
            PostgresDatabase.notify(c, CANCEL_CHANNEL, runId);
            return true;
        });
    }

    @Override
    public synchronized AutoCloseable onCancel(BiConsumer<String, String> listener) {
        Objects.requireNonNull(listener, "listener");
        if (cancelChanges == null) {
            cancelChanges = new RunChanges(db, CANCEL_CHANNEL);
        }
        return cancelChanges.watch(runId -> {
            // after a reconnect (ANY) a cancel may have been missed: look at every run this process holds
            boolean all = RunChanges.ANY.equals(runId);
            Map<String, String> asked = db.transaction("read cancels", (c, retry) -> {
                Map<String, String> found = new LinkedHashMap<>();
                try (PreparedStatement s = c.prepareStatement("SELECT run_id, cancel_reason FROM work WHERE cancel_reason IS NOT NULL"
                        + " AND state = 'claimed' AND " + (all ? "claimed_by = ?" : "run_id = ?"))) {
                    if (all) {
                        s.setObject(1, db.ownerId());
                    } else {
                        s.setString(1, runId);
                    }
                    try (ResultSet r = s.executeQuery()) {
                        while (r.next()) {
                            found.put(r.getString(1), r.getString(2));
                        }
                    }
                }
                return found;
            });
            asked.forEach(listener);
        });
    }

    @Override
    public int depth() {
        return db.transaction("count queued work", (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM work WHERE state = 'queued'");
                 ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        });
    }

    /** Stops listening; the connections are the store's. */
    @Override
    public synchronized void close() {
        if (workChanges != null) {
            workChanges.close();
        }
        if (cancelChanges != null) {
            cancelChanges.close();
        }
        if (runChanges != null) {
            runChanges.close();
        }
    }
}
