package dev.codeagent.store.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.kit.store.jdbc.RunJson;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.QueuedSandbox;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ExecutionQueue} in the {@code executions} table. All its notices go over one channel,
 * {@value #CHANNEL}, so a process listens on one connection whatever part it plays: {@code queued}
 * wakes workers, {@code done:<submitter>} wakes that submitter, {@code withdrawn:<id>} tells the worker
 * holding it. A notice is only a hint to look: after a reconnect every listener looks again.
 */
final class PostgresExecutionQueue implements ExecutionQueue, AutoCloseable {

    static final String CHANNEL = "codeagent_executions";

    private static final Logger log = LoggerFactory.getLogger(PostgresExecutionQueue.class);
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    /** How often at most an idle worker clears away work whose submitter is gone. */
    private static final long SWEEP_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Beyond four leases, how long a silent submitter's work is kept (a database outage silences everyone). */
    static final Duration ORPHAN_GRACE = Duration.ofSeconds(60);

    private final PostgresDatabase db;
    private final RunJson json = new RunJson();
    private final String recordedBy = PostgresDatabase.recordedBy();
    private final Semaphore queued = new Semaphore(0);
    private final Semaphore done = new Semaphore(0);
    private final Set<String> held = ConcurrentHashMap.newKeySet();
    private final String myDone;
    private RunChanges notices; // guarded by this
    private volatile long lastSweep = System.nanoTime() - SWEEP_EVERY_NANOS;

    PostgresExecutionQueue(PostgresDatabase db) {
        this.db = db;
        this.myDone = "done:" + db.ownerId();
    }

    private synchronized RunChanges notices() {
        if (notices == null) {
            notices = new RunChanges(db, CHANNEL);
            notices.watch(notice -> {
                boolean any = RunChanges.ANY.equals(notice);
                // permits are hints: a few are enough to wake every waiting thread, more would only spin them
                if ((any || notice.equals("queued")) && queued.availablePermits() < 64) {
                    queued.release();
                }
                if ((any || notice.equals(myDone)) && done.availablePermits() < 1) {
                    done.release();
                }
            });
        }
        return notices;
    }

    @Override
    public void submit(String id, ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("an execution id is 1-64 letters, digits, '-' or '_': " + id);
        }
        String body = json.write(request);
        notices();
        db.transaction("queue execution " + id, (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO executions (id, state, submitted_by, request)"
                    + " VALUES (?, 'queued', ?, ?) ON CONFLICT (id) DO NOTHING")) {
                s.setString(1, id);
                s.setObject(2, db.ownerId());
                s.setString(3, body);
                s.executeUpdate();
            }
            notice(c, "queued");
            return null;
        });
    }

    @Override
    public Map<String, Execution> takeResults() {
        Map<String, String> found = db.transaction("read finished executions", (c, retry) -> {
            Map<String, String> rows = new LinkedHashMap<>();
            try (PreparedStatement s = c.prepareStatement("SELECT id, result FROM executions WHERE submitted_by = ? AND state = 'done'")) {
                s.setObject(1, db.ownerId());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        rows.put(r.getString(1), r.getString(2));
                    }
                }
            }
            return rows;
        });
        if (found.isEmpty()) {
            return Map.of();
        }
        Map<String, Execution> results = new LinkedHashMap<>();
        found.forEach((id, text) -> {
            try {
                results.put(id, json.execution(text));
            } catch (JsonProcessingException | IllegalArgumentException e) {
                // its caller is waiting for an answer: this one, rather than none (or, thrown, none of the others)
                results.put(id, Execution.sandboxError("the result of queued execution " + id + " does not read: "
                        + e.getMessage(), Duration.ZERO, QueuedSandbox.ISOLATION));
            }
        });
        // read, then forget in a second step: a result whose forgetting is lost is read again, never lost unread
        delete(found.keySet(), "forget finished executions");
        return results;
    }

    @Override
    public boolean awaitResults(Duration max) throws InterruptedException {
        notices();
        boolean woke = done.tryAcquire(max.toMillis(), TimeUnit.MILLISECONDS);
        done.drainPermits();
        return woke;
    }

    @Override
    public void withdraw(Collection<String> ids) {
        if (ids.isEmpty()) {
            return;
        }
        db.transaction("withdraw " + ids.size() + " queued executions", (c, retry) -> {
            List<String> running = new ArrayList<>();
            try (PreparedStatement s = c.prepareStatement("DELETE FROM executions WHERE id = ANY (?) AND submitted_by = ?"
                    + " RETURNING id, state")) {
                s.setArray(1, c.createArrayOf("text", ids.toArray()));
                s.setObject(2, db.ownerId());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        if (r.getString(2).equals("claimed")) {
                            running.add(r.getString(1));
                        }
                    }
                }
            }
            for (String id : running) {
                notice(c, "withdrawn:" + id);
            }
            return null;
        });
    }

    @Override
    public Optional<Claimed> claimExecution() {
        notices();
        Optional<Claimed> claimed = db.transaction("claim a queued execution", (c, retry) -> {
            Row row = null;
            if (retry > 0) {
                // the connection broke around the commit: a claim this process made but never heard of is its own
                try (PreparedStatement s = c.prepareStatement("SELECT id, claims, request FROM executions WHERE claimed_by = ?"
                        + " AND state = 'claimed' AND NOT (id = ANY (?)) ORDER BY claimed_at DESC LIMIT 1")) {
                    s.setObject(1, db.ownerId());
                    s.setArray(2, c.createArrayOf("text", held.toArray()));
                    row = one(s);
                }
            }
            if (row == null) {
                // waiting work of a live submitter, or work whose worker stopped beating; first queued, first claimed
                try (PreparedStatement s = c.prepareStatement("WITH next AS (SELECT e.id FROM executions e"
                        + " WHERE (e.state = 'queued' OR (e.state = 'claimed' AND NOT EXISTS (SELECT 1 FROM run_owners o"
                        + " WHERE o.id = e.claimed_by AND " + PostgresDatabase.ALIVE + ")))"
                        + " AND EXISTS (SELECT 1 FROM run_owners o WHERE o.id = e.submitted_by AND " + PostgresDatabase.ALIVE + ")"
                        + " ORDER BY e.seq LIMIT 1 FOR UPDATE OF e SKIP LOCKED)"
                        + " UPDATE executions e SET state = 'claimed', claimed_by = ?, claimed_at = now(), claims = e.claims + 1"
                        + " FROM next WHERE e.id = next.id RETURNING e.id, e.claims, e.request")) {
                    s.setObject(1, db.ownerId());
                    row = one(s);
                }
            }
            if (row == null) {
                return Optional.<Claimed>empty();
            }
            try {
                return Optional.of(new Claimed(row.id(), json.request(row.request()), row.claims()));
            } catch (JsonProcessingException | IllegalArgumentException e) {
                // a request this version cannot read: answer it as failed rather than leave it for the next claimer
                log.warn("queued execution {} does not read: {}", row.id(), e.getMessage());
                finish(c, row.id(), failed("the queued request does not read: " + e.getMessage()));
                return Optional.<Claimed>empty();
            }
        });
        if (claimed.isPresent()) {
            held.add(claimed.get().id());
        } else {
            sweep();
        }
        return claimed;
    }

    /** A claimed row: its id, how often it was claimed, the request as stored. */
    private record Row(String id, int claims, String request) {
    }

    private static Row one(PreparedStatement s) throws SQLException {
        try (ResultSet r = s.executeQuery()) {
            return r.next() ? new Row(r.getString(1), r.getInt(2), r.getString(3)) : null;
        }
    }

    /**
     * Clears away work whose submitter is gone (closed, or silent for four of its leases and {@link #ORPHAN_GRACE}):
     * nobody is left to read its result. Until then such work is only skipped by claims.
     */
    private void sweep() {
        long now = System.nanoTime();
        if (now - lastSweep < SWEEP_EVERY_NANOS) {
            return;
        }
        lastSweep = now;
        try {
            int gone = db.transaction("clear away orphaned executions", (c, retry) -> {
                // a submitter that closed has no row; one merely silent is given far longer than its lease before its
                // work goes: after a database outage every process looks silent until its next beat
                try (PreparedStatement s = c.prepareStatement("DELETE FROM executions e WHERE NOT EXISTS (SELECT 1 FROM run_owners o"
                        + " WHERE o.id = e.submitted_by AND o.heartbeat_at > now() - make_interval(secs => o.lease_seconds * 4 + ?))")) {
                    s.setDouble(1, ORPHAN_GRACE.toSeconds());
                    return s.executeUpdate();
                }
            });
            if (gone > 0) {
                log.info("cleared away {} queued executions whose submitter is gone", gone);
            }
        } catch (RuntimeException e) {
            log.warn("could not clear away orphaned executions: {}", e.getMessage());
        }
    }

    @Override
    public boolean awaitExecutions(Duration max) throws InterruptedException {
        notices();
        return queued.tryAcquire(max.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean complete(String id, Execution result) {
        Objects.requireNonNull(result, "result");
        String body = json.write(result);
        boolean recorded = db.transaction("record execution " + id, (c, retry) -> {
            if (finish(c, id, body)) {
                return true;
            }
            // the connection broke around the commit: our own result, recorded before, counts
            return retry > 0 && ownResult(c, id, body);
        });
        held.remove(id);
        return recorded;
    }

    /** A sandbox error saying why the queue itself could not carry an execution, in the stored form. */
    private String failed(String why) {
        return json.write(Execution.sandboxError(why, Duration.ZERO, QueuedSandbox.ISOLATION));
    }

    /** Records a result (the stored form), fenced by this process's claim. */
    private boolean finish(Connection c, String id, String text) throws SQLException {
        String submitter;
        try (PreparedStatement s = c.prepareStatement("UPDATE executions SET state = 'done', result = ?, recorded_by = ?"
                + " WHERE id = ? AND state = 'claimed' AND claimed_by = ? RETURNING submitted_by")) {
            s.setString(1, text);
            s.setString(2, recordedBy);
            s.setString(3, id);
            s.setObject(4, db.ownerId());
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return false;
                }
                submitter = r.getString(1);
            }
        }
        notice(c, "done:" + submitter);
        return true;
    }

    private boolean ownResult(Connection c, String id, String body) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM executions WHERE id = ? AND state = 'done'"
                + " AND claimed_by = ? AND result = ?")) {
            s.setString(1, id);
            s.setObject(2, db.ownerId());
            s.setString(3, body);
            try (ResultSet r = s.executeQuery()) {
                return r.next();
            }
        }
    }

    @Override
    public void release(String id) {
        held.remove(id);
        db.transaction("hand back execution " + id, (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("UPDATE executions SET state = 'queued', claimed_by = NULL,"
                    + " claimed_at = NULL WHERE id = ? AND state = 'claimed' AND claimed_by = ?")) {
                s.setString(1, id);
                s.setObject(2, db.ownerId());
                if (s.executeUpdate() > 0) {
                    notice(c, "queued");
                }
            }
            return null;
        });
    }

    @Override
    public AutoCloseable onWithdrawn(Consumer<String> listener) {
        Objects.requireNonNull(listener, "listener");
        return notices().watch(notice -> {
            if (notice.startsWith("withdrawn:")) {
                String id = notice.substring("withdrawn:".length());
                if (held.contains(id)) {
                    listener.accept(id);
                }
            } else if (RunChanges.ANY.equals(notice) && !held.isEmpty()) {
                // a withdrawal may have been missed while reconnecting: whatever this process holds and is gone was one
                Set<String> still = db.transaction("look for withdrawn executions", (c, retry) -> {
                    Set<String> found = new java.util.HashSet<>();
                    try (PreparedStatement s = c.prepareStatement("SELECT id FROM executions WHERE id = ANY (?)")) {
                        s.setArray(1, c.createArrayOf("text", held.toArray()));
                        try (ResultSet r = s.executeQuery()) {
                            while (r.next()) {
                                found.add(r.getString(1));
                            }
                        }
                    }
                    return found;
                });
                for (String id : List.copyOf(held)) {
                    if (!still.contains(id)) {
                        listener.accept(id);
                    }
                }
            }
        });
    }

    @Override
    public int executionsWaiting() {
        return db.transaction("count queued executions", (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM executions WHERE state = 'queued'");
                 ResultSet r = s.executeQuery()) {
                r.next();
                return r.getInt(1);
            }
        });
    }

    private void delete(Collection<String> ids, String what) {
        db.transaction(what, (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM executions WHERE id = ANY (?) AND submitted_by = ?")) {
                s.setArray(1, c.createArrayOf("text", ids.toArray()));
                s.setObject(2, db.ownerId());
                s.executeUpdate();
            }
            return null;
        });
    }

    private static void notice(Connection c, String payload) throws SQLException {
        PostgresDatabase.notify(c, CHANNEL, payload);
    }

    @Override
    public synchronized void close() {
        if (notices != null) {
            notices.close();
            notices = null;
        }
    }
}
