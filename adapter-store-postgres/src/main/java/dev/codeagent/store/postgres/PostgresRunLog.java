package dev.codeagent.store.postgres;

import dev.codeagent.kit.store.jdbc.RunJson;
import dev.codeagent.kit.store.jdbc.StoredRuns;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import java.util.Collection;
import java.util.function.Consumer;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
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
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

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
 * <p>It is also the {@link WorkQueue} of the processes sharing the database: claims take the oldest
 * waiting run with {@code FOR UPDATE SKIP LOCKED}, so concurrent claimers never block on each other
 * nor get the same run; a claim's lease is its holder's heartbeat. Writes to a claimed run are
 * fenced: once another process holds the claim, the old holder's attempts and end are refused.
 */
public final class PostgresRunLog implements RunLog, WorkQueue, ExecutionQueue, AutoCloseable {

    static final String WORK_CHANNEL = "codeagent_work";
    static final String CANCEL_CHANNEL = "codeagent_cancel";

    /** The most runs {@link #recent} returns at once. */
    public static final int MAX_PAGE = StoredRuns.MAX_PAGE;

    private final PostgresDatabase db;
    private final boolean ownsDatabase;
    private final Clock clock;
    private final RunJson json = new RunJson();
    private final StoredRuns stored = new StoredRuns(json, at -> instant((BigDecimal) at), this::unreadable);
    private final String recordedBy = PostgresDatabase.recordedBy();
    private final Semaphore workSignal = new Semaphore(0);
    private final Set<String> held = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final PostgresExecutionQueue executions;
    private RunChanges workChanges; // guarded by this
    private RunChanges cancelChanges; // guarded by this
    private RunChanges runChanges; // guarded by this

    PostgresRunLog(PostgresDatabase db, boolean ownsDatabase, Clock clock) {
        this.db = db;
        this.ownsDatabase = ownsDatabase;
        this.clock = clock;
        this.executions = new PostgresExecutionQueue(db);
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
     * <p>Newest first by start time, then by id; an unknown {@code beforeId} gives an empty page.
     */
    @Override
    public List<Run> recent(int limit, String beforeId) {
        StoredRuns.checkLimit(limit);
        return db.transaction("list runs", (c, retry) -> stored.recent(c, limit, beforeId));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Filtered in the query, so a page is as full as the owner's runs allow; an unknown {@code beforeId},
     * or another owner's, gives an empty page.
     */
    @Override
    public List<Run> recentOwnedBy(String owner, int limit, String beforeId) {
        Objects.requireNonNull(owner, "owner");
        StoredRuns.checkLimit(limit);
        return db.transaction("list runs", (c, retry) -> stored.recentOwnedBy(c, owner, limit, beforeId));
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

    @Override
    public synchronized void close() {
        executions.close();
        if (workChanges != null) {
            workChanges.close();
        }
        if (cancelChanges != null) {
            cancelChanges.close();
        }
        if (runChanges != null) {
            runChanges.close();
        }
        if (ownsDatabase) {
            db.close();
        }
    }

    // ---- the work queue

    @Override
    public void enqueue(Run run) {
        started(run);
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
                Run run = stored.find(c, runId).orElseThrow();
                if (cancelled != null || run.status().isFinal()) {
                    // cancelled while its holder was dying, or ended just before: nothing left to work
                    if (!run.status().isFinal()) {
                        endRun(c, runId, RunStatus.CANCELLED, seconds(clock.instant()), cancelled);
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
        BigDecimal now = seconds(clock.instant());
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
        notifyChange(c, runId);
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
        BigDecimal now = seconds(clock.instant());
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

    // ---- the execution queue (its own table and channel: see PostgresExecutionQueue)

    @Override
    public void submit(String id, ExecutionRequest request) {
        executions.submit(id, request);
    }

    @Override
    public Map<String, Execution> takeResults() {
        return executions.takeResults();
    }

    @Override
    public boolean awaitResults(Duration max) throws InterruptedException {
        return executions.awaitResults(max);
    }

    @Override
    public void withdraw(Collection<String> ids) {
        executions.withdraw(ids);
    }

    @Override
    public Optional<Claimed> claimExecution() {
        return executions.claimExecution();
    }

    @Override
    public boolean awaitExecutions(Duration max) throws InterruptedException {
        return executions.awaitExecutions(max);
    }

    @Override
    public boolean complete(String id, Execution result) {
        return executions.complete(id, result);
    }

    @Override
    public void release(String id) {
        executions.release(id);
    }

    @Override
    public AutoCloseable onWithdrawn(Consumer<String> listener) {
        return executions.onWithdrawn(listener);
    }

    @Override
    public int executionsWaiting() {
        return executions.executionsWaiting();
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
