package dev.codeagent.store.postgres;

import dev.codeagent.kit.store.jdbc.RunJson;
import dev.codeagent.kit.store.jdbc.StoredRuns;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A {@link RunLog} in PostgreSQL: store kind {@code postgres}. Any number of processes on any
 * machines share one database; every call is one transaction, committed before it returns.
 *
 * <p>Each change to a run is announced with {@code NOTIFY} on {@value PostgresDatabase#RUN_CHANNEL}
 * (payload: the run id) in the same transaction, so a listener in any process hears of it exactly
 * when it is visible; see {@link RunChanges}.
 *
 * <p>A run belongs to the process that {@linkplain #started started} it; processes beat a heartbeat
 * by the database's clock, and {@link #markInterrupted} ends only the runs whose owner has missed it
 * for the configured lease timeout — whatever machine the owner ran on.
 *
 * <p>A call that loses its connection is retried on a new one (a database restart is ridden out);
 * each write recognises its own earlier commit on a retry, so none is lost or made twice.
 *
 * <p>Writes to a run a worker has claimed from the {@link PostgresWorkQueue} are fenced: once another process holds
 * the claim, the old holder's attempts and end are refused.
 */
public final class PostgresRunLog implements RunLog, AutoCloseable {

    /** The most runs {@link #recent} returns at once. */
    public static final int MAX_PAGE = StoredRuns.MAX_PAGE;

    private final PostgresDatabase db;
    private final boolean ownsDatabase;
    private final Clock clock;
    private final RunJson json = new RunJson();
    private final StoredRuns stored = new StoredRuns(json, at -> instant((BigDecimal) at), this::unreadable);
    private final String recordedBy = PostgresDatabase.recordedBy();

    PostgresRunLog(PostgresDatabase db, boolean ownsDatabase, Clock clock) {
        this.db = db;
        this.ownsDatabase = ownsDatabase;
        this.clock = clock;
    }

    /**
     * Connects to the configured database, bringing its schema up to date: a run log on its own, which closes its
     * connections when closed ({@link PostgresStore} is the run log with the queues, over one connection pool).
     *
     * @throws PostgresUnavailableException when it cannot be reached or migrated
     */
    public static PostgresRunLog open(PostgresStoreConfig config) {
        return new PostgresRunLog(PostgresDatabase.open(config), true, Clock.systemUTC());
    }

    @Override
    public void started(Run run) {
        Objects.requireNonNull(run, "run");
        String task = json.write(run.task());
        List<String> attempts = new ArrayList<>();
        Set<Integer> numbers = new HashSet<>();
        for (Attempt a : run.attempts()) {
            if (!numbers.add(a.number())) {
                throw new IllegalArgumentException("run " + run.id() + " has two attempts numbered " + a.number());
            }
            attempts.add(json.write(a));
        }
        BigDecimal startedAt = seconds(run.startedAt());
        BigDecimal endedAt = run.endedAt() == null ? null : seconds(run.endedAt());
        db.transaction("record run " + run.id(), (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO runs (id, prompt, language, task, status,"
                    + " started_at, ended_at, reason, owner_id, started_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    + " ON CONFLICT (id) DO NOTHING")) {
                s.setString(1, run.id());
                s.setString(2, run.task().prompt());
                s.setString(3, run.task().language().id());
                s.setString(4, task);
                s.setString(5, run.status().name());
                s.setBigDecimal(6, startedAt);
                s.setBigDecimal(7, endedAt);
                s.setString(8, run.reason());
                s.setObject(9, db.ownerId());
                s.setString(10, run.owner());
                if (s.executeUpdate() == 0) {
                    if (retry > 0 && ownedTask(c, run.id(), task)) {
                        return null; // our own insert, committed before the connection broke
                    }
                    throw new IllegalStateException("run " + run.id() + " exists already");
                }
            }
            for (int i = 0; i < attempts.size(); i++) {
                insertAttempt(c, run.id(), run.attempts().get(i), attempts.get(i));
            }
            notifyChange(c, run.id());
            return null;
        });
    }

    private boolean ownedTask(Connection c, String runId, String task) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT task, owner_id FROM runs WHERE id = ?")) {
            s.setString(1, runId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() && task.equals(r.getString(1)) && db.ownerId().equals(r.getObject(2));
            }
        }
    }

    @Override
    public void attemptFinished(String runId, Attempt attempt) {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(attempt, "attempt");
        String body = json.write(attempt);
        db.transaction("record attempt " + attempt.number() + " of run " + runId, (c, retry) -> {
            if (!exists(c, runId)) {
                throw new NoSuchElementException("no run " + runId);
            }
            fence(c, runId);
            if (!insertAttempt(c, runId, attempt, body)) {
                if (retry > 0 && body.equals(storedAttempt(c, runId, attempt.number()))) {
                    return null;
                }
                throw new IllegalStateException("run " + runId + " already has an attempt " + attempt.number());
            }
            notifyChange(c, runId);
            return null;
        });
    }

    @Override
    public void ended(String runId, RunStatus status, Instant endedAt, String reason) {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(endedAt, "endedAt");
        if (!status.isFinal()) {
            throw new IllegalArgumentException("cannot end a run as " + status);
        }
        BigDecimal at = seconds(endedAt);
        db.transaction("record the end of run " + runId, (c, retry) -> {
            fence(c, runId);
            try (PreparedStatement s = c.prepareStatement("UPDATE runs SET status = ?, ended_at = ?, reason = ? WHERE id = ?")) {
                s.setString(1, status.name());
                s.setBigDecimal(2, at);
                s.setString(3, reason);
                s.setString(4, runId);
                if (s.executeUpdate() == 0) {
                    throw new NoSuchElementException("no run " + runId);
                }
            }
            notifyChange(c, runId);
            return null;
        });
    }

    @Override
    public Optional<Run> find(String runId) {
        Objects.requireNonNull(runId, "runId");
        return db.transaction("read run " + runId, (c, retry) -> stored.find(c, runId));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Owner and statuses are conditions of the query; an unknown {@code beforeId}, or another owner's, gives an
     * empty page.
     */
    @Override
    public List<Run> recent(RunFilter filter, int limit, String beforeId) {
        Objects.requireNonNull(filter, "filter");
        StoredRuns.checkLimit(limit);
        return db.transaction("list runs", (c, retry) -> stored.recent(c, filter, limit, beforeId));
    }

    /**
     * {@inheritDoc}
     *
     * <p>A run's owner is alive while its heartbeat, by the database's clock, is younger than
     * {@code store.postgres.leaseTimeout}; runs with no recorded owner count as interrupted. Their
     * end time is now by this log's clock.
     */
    @Override
    public int markInterrupted(String reason) {
        Objects.requireNonNull(reason, "reason");
        BigDecimal now = seconds(clock.instant());
        return db.transaction("mark interrupted runs", (c, retry) -> {
            List<String> marked = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("UPDATE runs SET status = 'ERROR', ended_at = ?, reason = ?"
                    + " WHERE status = 'RUNNING' AND (owner_id IS NULL OR owner_id NOT IN"
                    + " (SELECT o.id FROM run_owners o WHERE " + PostgresDatabase.ALIVE + "))"
                    // queued runs are the claimers' to take over or end (store.postgres.onLeaseLoss)
                    + " AND NOT EXISTS (SELECT 1 FROM work w WHERE w.run_id = runs.id AND w.state <> 'done')"
                    + " RETURNING id")) {
                s.setBigDecimal(1, now);
                s.setString(2, reason);
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        marked.add(r.getString(1));
                    }
                }
            }
            for (String id : marked) {
                notifyChange(c, id);
            }
            return marked.size();
        });
    }

    /** Hears of every change to any run, from any process sharing the database. */
    public RunChanges changes() {
        return new RunChanges(db);
    }

    /** Closes the database connections when this log opened them ({@link #open}); a store's log leaves them to the store. */
    @Override
    public void close() {
        if (ownsDatabase) {
            db.close();
        }
    }

    /** Reads runs in a transaction another part of the store holds (a claim reads the run it took). */
    StoredRuns stored() {
        return stored;
    }

    // ---- rows

    static void notifyChange(Connection c, String runId) throws SQLException {
        PostgresDatabase.notify(c, PostgresDatabase.RUN_CHANNEL, runId);
    }

    private static boolean exists(Connection c, String runId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM runs WHERE id = ?")) {
            s.setString(1, runId);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    private static String storedAttempt(Connection c, String runId, int number) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT attempt FROM attempts WHERE run_id = ? AND number = ?")) {
            s.setString(1, runId);
            s.setInt(2, number);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    /** Refuses a write to a run another process holds the claim of: this one lost its lease. */
    private void fence(Connection c, String runId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT claimed_by FROM work WHERE run_id = ? AND state = 'claimed' FOR UPDATE")) {
            s.setString(1, runId);
            try (ResultSet r = s.executeQuery()) {
                if (r.next() && !db.ownerId().equals(r.getObject(1))) {
                    throw new IllegalStateException("run " + runId + " is held by another worker now (this one lost its lease)");
                }
            }
        }
    }

    /** Inserts the attempt; false when the run has one of that number already. */
    private boolean insertAttempt(Connection c, String runId, Attempt attempt, String body) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO attempts (run_id, number, verdict, outcome, attempt, recorded_by)"
                + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, number) DO NOTHING")) {
            // where the attempt ran: this process's host and pid, and the sandbox tier its execution names
            s.setString(6, attempt.execution() == null ? recordedBy
                    : dev.codeagent.application.placement.Placements.here(attempt.execution().isolation().tier()).describe());
            s.setString(1, runId);
            s.setInt(2, attempt.number());
            s.setString(3, attempt.verdict().kind().name());
            s.setString(4, attempt.execution() == null ? null : attempt.execution().outcome().name());
            s.setString(5, body);
            return s.executeUpdate() == 1;
        }
    }

    private PostgresUnavailableException unreadable(String what, String why, Exception e) {
        return new PostgresUnavailableException("run store " + db.where() + ": " + what + " cannot be read (" + why + ")", e);
    }

    // ---- values

    /** Exact seconds since the epoch, nanoseconds included. */
    static BigDecimal seconds(Instant t) {
        return BigDecimal.valueOf(t.getEpochSecond()).add(BigDecimal.valueOf(t.getNano(), 9));
    }

    static Instant instant(BigDecimal seconds) {
        BigDecimal whole = seconds.setScale(0, RoundingMode.FLOOR);
        int nanos = seconds.subtract(whole).movePointRight(9).intValueExact();
        return Instant.ofEpochSecond(whole.longValueExact(), nanos);
    }
}
