package dev.codeagent.store.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.application.store.RunJson;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 */
public final class PostgresRunLog implements RunLog, AutoCloseable {

    /** The most runs {@link #recent} returns at once. */
    public static final int MAX_PAGE = 1000;

    private static final String RUN_COLUMNS = "id, task, status, started_at, ended_at, reason";

    private final PostgresDatabase db;
    private final boolean ownsDatabase;
    private final Clock clock;
    private final RunJson json = new RunJson();

    PostgresRunLog(PostgresDatabase db, boolean ownsDatabase, Clock clock) {
        this.db = db;
        this.ownsDatabase = ownsDatabase;
        this.clock = clock;
    }

    /**
     * Connects to the configured database, bringing its schema up to date.
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
                    + " started_at, ended_at, reason, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
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
        return db.transaction("read run " + runId, (c, retry) -> {
            List<Run> found = runs(c, "SELECT " + RUN_COLUMNS + " FROM runs WHERE id = ?", List.of(runId));
            return found.isEmpty() ? Optional.<Run>empty() : Optional.of(found.get(0));
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Newest first by start time, then by id; an unknown {@code beforeId} gives an empty page.
     */
    @Override
    public List<Run> recent(int limit, String beforeId) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_PAGE + ", was " + limit);
        }
        return db.transaction("list runs", (c, retry) -> {
            if (beforeId == null) {
                return runs(c, "SELECT " + RUN_COLUMNS + " FROM runs ORDER BY started_at DESC, id DESC LIMIT ?",
                        List.of(limit));
            }
            return runs(c, "SELECT " + RUN_COLUMNS + " FROM runs"
                    + " WHERE (started_at, id) < (SELECT started_at, id FROM runs WHERE id = ?)"
                    + " ORDER BY started_at DESC, id DESC LIMIT ?", List.of(beforeId, limit));
        });
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
        long leaseMillis = db.config().leaseTimeout().toMillis();
        return db.transaction("mark interrupted runs", (c, retry) -> {
            List<String> marked = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("UPDATE runs SET status = 'ERROR', ended_at = ?, reason = ?"
                    + " WHERE status = 'RUNNING' AND (owner_id IS NULL OR owner_id NOT IN"
                    + " (SELECT id FROM run_owners WHERE heartbeat_at > now() - make_interval(secs => ?)))"
                    + " RETURNING id")) {
                s.setBigDecimal(1, now);
                s.setString(2, reason);
                s.setDouble(3, leaseMillis / 1000.0);
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

    @Override
    public void close() {
        if (ownsDatabase) {
            db.close();
        }
    }

    // ---- rows

    static void notifyChange(Connection c, String runId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            s.setString(1, PostgresDatabase.RUN_CHANNEL);
            s.setString(2, runId);
            s.execute();
        }
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

    /** Inserts the attempt; false when the run has one of that number already. */
    private static boolean insertAttempt(Connection c, String runId, Attempt attempt, String body) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO attempts (run_id, number, verdict, outcome, attempt)"
                + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, number) DO NOTHING")) {
            s.setString(1, runId);
            s.setInt(2, attempt.number());
            s.setString(3, attempt.verdict().kind().name());
            s.setString(4, attempt.execution() == null ? null : attempt.execution().outcome().name());
            s.setString(5, body);
            return s.executeUpdate() == 1;
        }
    }

    private List<Run> runs(Connection c, String sql, List<?> params) throws SQLException {
        List<RunRow> rows = new ArrayList<>();
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) {
                s.setObject(i + 1, params.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(new RunRow(r.getString(1), r.getString(2), r.getString(3), r.getBigDecimal(4),
                            r.getBigDecimal(5), r.getString(6)));
                }
            }
        }
        if (rows.isEmpty()) {
            return List.of();
        }
        Map<String, List<Attempt>> attempts = new LinkedHashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT run_id, number, attempt FROM attempts"
                + " WHERE run_id = ANY (?) ORDER BY run_id, number")) {
            s.setArray(1, c.createArrayOf("text", rows.stream().map(RunRow::id).toArray()));
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    String runId = r.getString(1);
                    Attempt a;
                    try {
                        a = json.attempt(r.getString(3));
                    } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
                        throw unreadable("attempt " + r.getInt(2) + " of run " + runId, e);
                    }
                    attempts.computeIfAbsent(runId, k -> new ArrayList<>()).add(a);
                }
            }
        }
        List<Run> result = new ArrayList<>(rows.size());
        for (RunRow row : rows) {
            result.add(toRun(row, attempts.getOrDefault(row.id(), List.of())));
        }
        return result;
    }

    /** A runs row before its attempts are joined. */
    private record RunRow(String id, String task, String status, BigDecimal startedAt, BigDecimal endedAt, String reason) {
    }

    private Run toRun(RunRow row, List<Attempt> attempts) {
        try {
            Task task = json.task(row.task());
            return new Run(row.id(), task, RunStatus.valueOf(row.status()), attempts, instant(row.startedAt()),
                    row.endedAt() == null ? null : instant(row.endedAt()), row.reason());
        } catch (JsonProcessingException | RuntimeException e) {
            throw unreadable("run " + row.id(), e);
        }
    }

    private PostgresUnavailableException unreadable(String what, Exception e) {
        String why = e instanceof JsonProcessingException ? ((JsonProcessingException) e).getOriginalMessage() : e.getMessage();
        return new PostgresUnavailableException("run store " + db.where() + ": " + what + " cannot be read ("
                + PostgresDatabase.firstLine(why) + ")", e);
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
