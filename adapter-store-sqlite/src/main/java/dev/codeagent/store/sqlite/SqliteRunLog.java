package dev.codeagent.store.sqlite;

import dev.codeagent.kit.store.jdbc.RunJson;
import dev.codeagent.kit.store.jdbc.StoredRuns;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RunLog} in an SQLite file: store kind {@code sqlite}.
 *
 * <p>Every call is one transaction, committed (and, with {@code synchronous=FULL}, flushed to disk)
 * before it returns, so a process killed at any point leaves each run and attempt either whole or
 * absent. The file is in WAL mode, so other processes (the CLI while the HTTP server runs) can read it
 * while one writes; writers wait for each other up to {@link #BUSY_TIMEOUT}.
 *
 * <p>Opening creates the file and its directories if needed and brings the schema up to date. It does
 * not touch runs left RUNNING by a process that died: the caller decides when to
 * {@link #markInterrupted(String) mark them}; runs of processes still going are never marked. Safe for concurrent use (one connection, taken in turn).
 *
 * @see RunLogUnavailableException for a file that cannot be used
 */
public final class SqliteRunLog implements RunLog, AutoCloseable {

    /** How long a write waits for another process holding the file before it fails. */
    public static final Duration BUSY_TIMEOUT = Duration.ofSeconds(5);

    /** The most runs {@link #recent} returns at once. */
    public static final int MAX_PAGE = StoredRuns.MAX_PAGE;

    private static final Logger log = LoggerFactory.getLogger(SqliteRunLog.class);

    // Fixed width, so that text order is time order in SQL.
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final Instant EARLIEST = LocalDate.of(0, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant();
    private static final Instant LATEST = LocalDate.of(10000, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant().minusNanos(1);

    private final Path file;
    private final Clock clock;
    private final RunJson json = new RunJson();
    private final StoredRuns stored = new StoredRuns(json, at -> Instant.parse((String) at), this::unreadable);
    private final ProcessOwner owner = ProcessOwner.current();
    private final ReentrantLock lock = new ReentrantLock();
    private Connection connection; // guarded by lock; null once closed

    private SqliteRunLog(Path file, Clock clock, Connection connection) {
        this.file = file;
        this.clock = clock;
        this.connection = connection;
    }

    /**
     * Opens (creating if needed) the run log at {@code file}.
     *
     * @throws RunLogUnavailableException when the file cannot be created, opened or migrated
     */
    public static SqliteRunLog open(Path file) {
        return open(file, Clock.systemUTC());
    }

    /**
     * Opens the run log at {@code file}; {@code clock} gives the end time of runs marked interrupted.
     *
     * @throws RunLogUnavailableException when the file cannot be created, opened or migrated
     */
    public static SqliteRunLog open(Path file, Clock clock) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(clock, "clock");
        Path path = file.toAbsolutePath().normalize();
        SqliteFile.prepareLocation(path);
        Connection c = SqliteFile.connect(path);
        try {
            int from = SqliteFile.configureAndMigrate(path, c);
            log.debug("run log {} opened (schema version {}, was {})", path, Migrations.LATEST, from);
            return new SqliteRunLog(path, clock, c);
        } catch (SQLException e) {
            closeQuietly(c);
            throw new RunLogUnavailableException(path, SqliteFile.describe(e), e);
        } catch (RuntimeException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /**
     * The file a configured path names: a leading {@code ~} (alone or before a separator) is the
     * user's home directory; a relative path is taken from the working directory.
     *
     * @throws IllegalArgumentException when the path is blank or not a valid path
     */
    public static Path resolvePath(String configured) {
        if (configured == null || configured.isBlank()) {
            throw new IllegalArgumentException("store.sqlite.path must not be empty");
        }
        String p = configured.strip();
        if (p.equals("~") || p.startsWith("~/") || p.startsWith("~" + java.io.File.separator)) {
            p = System.getProperty("user.home") + p.substring(1);
        }
        try {
            return Path.of(p).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("store.sqlite.path is not a valid path: " + e.getMessage(), e);
        }
    }

    /** The database file. */
    public Path file() {
        return file;
    }

    @Override
    public void started(Run run) {
        Objects.requireNonNull(run, "run");
        String task = json.write(run.task());
        List<String> attempts = new ArrayList<>();
        Set<Integer> numbers = new HashSet<>();
        for (Attempt a : run.attempts()) {
            // refused here, not by the primary key, so the caller hears what was wrong with the run
            if (!numbers.add(a.number())) {
                throw new IllegalArgumentException("run " + run.id() + " has two attempts numbered " + a.number());
            }
            attempts.add(json.write(a));
        }
        String startedAt = time(run.startedAt(), "startedAt");
        String endedAt = run.endedAt() == null ? null : time(run.endedAt(), "endedAt");
        write("record run " + run.id(), c -> {
            if (runStatus(c, run.id()) != null) {
                throw new IllegalStateException("run " + run.id() + " exists already");
            }
            try (PreparedStatement s = c.prepareStatement("INSERT INTO runs (id, prompt, language, task, status,"
                    + " started_at, ended_at, reason, owner_boot_id, owner_pid, owner_start, started_by)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                s.setString(1, run.id());
                s.setString(2, run.task().prompt());
                s.setString(3, run.task().language().id());
                s.setString(4, task);
                s.setString(5, run.status().name());
                s.setString(6, startedAt);
                s.setString(7, endedAt);
                s.setString(8, run.reason());
                s.setString(9, owner.bootId());
                s.setLong(10, owner.pid());
                s.setString(11, owner.start());
                s.setString(12, run.owner());
                s.executeUpdate();
            }
            for (int i = 0; i < attempts.size(); i++) {
                insertAttempt(c, run.id(), run.attempts().get(i), attempts.get(i));
            }
            return null;
        });
    }

    @Override
    public void attemptFinished(String runId, Attempt attempt) {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(attempt, "attempt");
        String body = json.write(attempt);
        write("record attempt " + attempt.number() + " of run " + runId, c -> {
            if (runStatus(c, runId) == null) {
                throw new NoSuchElementException("no run " + runId);
            }
            try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM attempts WHERE run_id = ? AND number = ?")) {
                s.setString(1, runId);
                s.setInt(2, attempt.number());
                try (ResultSet r = s.executeQuery()) {
                    if (r.next()) {
                        throw new IllegalStateException("run " + runId + " already has an attempt " + attempt.number());
                    }
                }
            }
            insertAttempt(c, runId, attempt, body);
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
        String at = time(endedAt, "endedAt");
        write("record the end of run " + runId, c -> {
            try (PreparedStatement s = c.prepareStatement("UPDATE runs SET status = ?, ended_at = ?, reason = ? WHERE id = ?")) {
                s.setString(1, status.name());
                s.setString(2, at);
                s.setString(3, reason);
                s.setString(4, runId);
                if (s.executeUpdate() == 0) {
                    throw new NoSuchElementException("no run " + runId);
                }
            }
            return null;
        });
    }

    @Override
    public Optional<Run> find(String runId) {
        Objects.requireNonNull(runId, "runId");
        return read("read run " + runId, c -> stored.find(c, runId));
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
        return read("list runs", c -> stored.recent(c, filter, limit, beforeId));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Each run records the process that {@linkplain #started started} it (see {@link ProcessOwner}).
     * A run is marked when that process has ended: it ran in an earlier boot, its pid is gone or is
     * now another process's (a different start time), or no owner was recorded (a row from before
     * owners were). Runs of live processes, this one included, are left alone, and so are runs whose
     * owner cannot be inspected. Checking and marking are one write transaction. Their end time is
     * now by this log's clock.
     */
    @Override
    public int markInterrupted(String reason) {
        Objects.requireNonNull(reason, "reason");
        String now = time(clock.instant(), "now");
        Marking result = write("mark interrupted runs", c -> {
            List<String> gone = new ArrayList<>();
            int unchecked = 0;
            try (PreparedStatement s = c.prepareStatement(
                    "SELECT id, owner_boot_id, owner_pid, owner_start FROM runs WHERE status = ?")) {
                s.setString(1, RunStatus.RUNNING.name());
                try (ResultSet r = s.executeQuery()) {
                    while (r.next()) {
                        long pid = r.getLong(3);
                        Long ownerPid = r.wasNull() ? null : pid;
                        ProcessOwner.State state = ProcessOwner.stateOf(r.getString(2), ownerPid, r.getString(4));
                        if (state == ProcessOwner.State.GONE) {
                            gone.add(r.getString(1));
                        } else if (state == ProcessOwner.State.UNKNOWN) {
                            unchecked++;
                        }
                    }
                }
            }
            int n = 0;
            try (PreparedStatement s = c.prepareStatement(
                    "UPDATE runs SET status = ?, ended_at = ?, reason = ? WHERE id = ? AND status = ?")) {
                for (String id : gone) {
                    s.setString(1, RunStatus.ERROR.name());
                    s.setString(2, now);
                    s.setString(3, reason);
                    s.setString(4, id);
                    s.setString(5, RunStatus.RUNNING.name());
                    n += s.executeUpdate();
                }
            }
            return new Marking(n, unchecked);
        });
        int marked = result.marked();
        if (marked > 0) {
            log.info("marked {} run(s) left RUNNING in {} by ended processes as ERROR: {}", marked, file, reason);
        }
        if (result.unchecked() > 0) {
            log.info("left {} RUNNING run(s) in {} alone: their owning process cannot be inspected",
                    result.unchecked(), file);
        }
        return marked;
    }

    /** What {@link #markInterrupted} did: runs marked, and runs left because their owner could not be checked. */
    private record Marking(int marked, int unchecked) {
    }

    /** Closes the connection; later calls fail. Closing twice is harmless. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    log.warn("closing run log {} failed: {}", file, SqliteFile.describe(e));
                } finally {
                    connection = null;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "SqliteRunLog[" + file + "]";
    }

    // ---- transactions

    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** Runs {@code work} in a write transaction, taken at once so that it never fails half-way for a lock. */
    <T> T write(String what, Work<T> work) {
        return inTransaction("BEGIN IMMEDIATE", what, work);
    }

    /** Runs {@code work} in a read transaction, so that its queries see one state of the file. */
    <T> T read(String what, Work<T> work) {
        return inTransaction("BEGIN", what, work);
    }

    private <T> T inTransaction(String begin, String what, Work<T> work) {
        lock.lock();
        try {
            Connection c = connection;
            if (c == null) {
                throw new IllegalStateException("run log " + file + " is closed");
            }
            try (Statement s = c.createStatement()) {
                s.execute(begin);
                boolean committed = false;
                try {
                    T result = work.run(c);
                    s.execute("COMMIT");
                    committed = true;
                    return result;
                } finally {
                    if (!committed) {
                        rollbackQuietly(c);
                    }
                }
            } catch (SQLException e) {
                throw new RunLogUnavailableException(file, "cannot " + what + ": " + SqliteFile.describe(e), e);
            }
        } finally {
            lock.unlock();
        }
    }

    static void rollbackQuietly(Connection c) {
        // SQLite may already have rolled back by itself (after an I/O error or a full disk)
        try (Statement s = c.createStatement()) {
            s.execute("ROLLBACK");
        } catch (SQLException e) {
            log.debug("rollback: {}", e.toString());
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            log.debug("close failed: {}", e.toString());
        }
    }

    // ---- rows

    private static String runStatus(Connection c, String runId) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT status FROM runs WHERE id = ?")) {
            s.setString(1, runId);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    private static void insertAttempt(Connection c, String runId, Attempt attempt, String body) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                "INSERT INTO attempts (run_id, number, verdict, outcome, attempt) VALUES (?, ?, ?, ?, ?)")) {
            s.setString(1, runId);
            s.setInt(2, attempt.number());
            s.setString(3, attempt.verdict().kind().name());
            s.setString(4, attempt.execution() == null ? null : attempt.execution().outcome().name());
            s.setString(5, body);
            s.executeUpdate();
        }
    }

    private RunLogUnavailableException unreadable(String what, String why, Exception e) {
        return new RunLogUnavailableException(file, what + " cannot be read (" + why + ")", e);
    }

    // ---- values

    static String time(Instant t, String what) {
        Objects.requireNonNull(t, what);
        if (t.isBefore(EARLIEST) || t.isAfter(LATEST)) {
            throw new IllegalArgumentException(what + " must lie in the years 0 to 9999, was " + t);
        }
        return TIME.format(t);
    }
}
