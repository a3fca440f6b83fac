package dev.codeagent.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process's hold on the database: a connection pool, the schema brought up to date with Flyway,
 * this process registered as a run owner with a heartbeat, and transactions that ride out a database
 * restart.
 *
 * <p>A call that loses its connection (the server restarted, the network dropped) is retried on a
 * new connection for up to {@link #RECONNECT_WINDOW}; work passed to {@link #transaction} must
 * therefore be safe to run again after a commit whose acknowledgement was lost — it is told which
 * try it is so it can recognise its own earlier write.
 */
final class PostgresDatabase implements AutoCloseable {

    /** How long a call keeps retrying on fresh connections before it gives up. */
    static final Duration RECONNECT_WINDOW = Duration.ofSeconds(60);

    /** The channel every change to a run is announced on, with the run id as payload. */
    static final String RUN_CHANNEL = "codeagent_runs";

    private static final Logger log = LoggerFactory.getLogger(PostgresDatabase.class);

    private final PostgresStoreConfig config;
    private final HikariDataSource pool;
    private final UUID ownerId = UUID.randomUUID();
    private final ScheduledExecutorService beats;
    private final String where;

    private PostgresDatabase(PostgresStoreConfig config, HikariDataSource pool) {
        this.config = config;
        this.pool = pool;
        this.where = describe(config.jdbcUrl());
        this.beats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "codeagent-postgres-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Connects, migrates and registers this process.
     *
     * @throws PostgresUnavailableException when the database cannot be reached or migrated
     */
    static PostgresDatabase open(PostgresStoreConfig config) {
        Objects.requireNonNull(config, "config");
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(config.jdbcUrl());
        hc.setUsername(config.user());
        hc.setPassword(config.password());
        hc.setMaximumPoolSize(config.poolSize());
        hc.setMinimumIdle(1);
        hc.setPoolName("codeagent-postgres");
        hc.setConnectionTimeout(5_000);
        hc.setValidationTimeout(2_000);
        // fail at start with the real reason when the database is not there, not later on first use
        hc.setInitializationFailTimeout(1);
        hc.addDataSourceProperty("tcpKeepAlive", "true");
        hc.addDataSourceProperty("ApplicationName", "codeagent");
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(hc);
        } catch (RuntimeException e) {
            throw new PostgresUnavailableException("run store " + describe(config.jdbcUrl()) + ": cannot connect ("
                    + firstLine(rootMessage(e)) + ")", e);
        }
        try {
            Flyway.configure().dataSource(pool).locations("classpath:db/codeagent-postgres")
                    .table("codeagent_schema_history").load().migrate();
        } catch (FlywayException e) {
            pool.close();
            throw new PostgresUnavailableException("run store " + describe(config.jdbcUrl()) + ": cannot bring the schema up to date ("
                    + firstLine(rootMessage(e)) + ")", e);
        }
        PostgresDatabase db = new PostgresDatabase(config, pool);
        db.register();
        long every = config.heartbeat().toMillis();
        db.beats.scheduleWithFixedDelay(db::beat, every, every, TimeUnit.MILLISECONDS);
        return db;
    }

    /** This process as a run owner. */
    UUID ownerId() {
        return ownerId;
    }

    PostgresStoreConfig config() {
        return config;
    }

    /** The database, for messages: host, port and name, never credentials. */
    String where() {
        return where;
    }

    /** A raw pooled connection, for the notification listener. */
    Connection connection() throws SQLException {
        return pool.getConnection();
    }

    private void register() {
        transaction("register this process", (c, attempt) -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO run_owners (id, host, pid, lease_seconds) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()")) {
                s.setObject(1, ownerId);
                s.setString(2, hostName());
                s.setLong(3, ProcessHandle.current().pid());
                s.setDouble(4, config.leaseTimeout().toMillis() / 1000.0);
                s.executeUpdate();
            }
            return null;
        });
    }

    private void beat() {
        try (Connection c = pool.getConnection();
             PreparedStatement s = c.prepareStatement("UPDATE run_owners SET heartbeat_at = now() WHERE id = ?")) {
            s.setObject(1, ownerId);
            if (s.executeUpdate() == 0) {
                // the row was cleaned away (this process was taken for dead): come back
                register();
            }
        } catch (SQLException | RuntimeException e) {
            log.warn("run store {}: heartbeat failed ({}); retrying", where, firstLine(e.getMessage()));
        }
    }

    /** Work in one transaction. {@code attempt} is 0 on the first try, more on a retry after a lost connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c, int attempt) throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction, committed before this returns. Retries on a new connection
     * while the database is unreachable, up to {@link #RECONNECT_WINDOW}.
     *
     * @throws PostgresUnavailableException when it fails for another reason, or stays unreachable
     */
    <T> T transaction(String what, Work<T> work) {
        long deadline = System.nanoTime() + RECONNECT_WINDOW.toNanos();
        int attempt = 0;
        long pause = 100;
        while (true) {
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try {
                    T result = work.run(c, attempt);
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if (!isConnectionLoss(e) || System.nanoTime() > deadline) {
                    throw new PostgresUnavailableException("run store " + where + ": cannot " + what + " ("
                            + firstLine(e.getMessage()) + ")", e);
                }
                attempt++;
                log.warn("run store {}: lost the connection to {} ({}); retrying", where, what, firstLine(e.getMessage()));
                sleep(pause);
                pause = Math.min(pause * 2, 2_000);
            }
        }
    }

    /** Whether the failure is the connection's, not the statement's: worth a retry on a new connection. */
    static boolean isConnectionLoss(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException) {
                String state = ((SQLException) t).getSQLState();
                // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now
                if (state != null && (state.startsWith("08") || state.startsWith("57P"))) {
                    return true;
                }
            }
        }
        // Hikari's "Connection is not available, request timed out" while the server is down
        return e.getClass().getName().startsWith("java.sql.SQLTransientConnectionException");
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException e) {
            log.debug("rollback: {}", e.toString());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PostgresUnavailableException("interrupted while waiting for the database", e);
        }
    }

    @Override
    public void close() {
        beats.shutdownNow();
        try (Connection c = pool.getConnection();
             PreparedStatement s = c.prepareStatement("DELETE FROM run_owners WHERE id = ?"
                     + " AND NOT EXISTS (SELECT 1 FROM runs WHERE owner_id = ? AND status = 'RUNNING')")) {
            // an owner with runs still going stays, so that they are later seen as interrupted
            s.setObject(1, ownerId);
            s.setObject(2, ownerId);
            s.executeUpdate();
        } catch (SQLException | RuntimeException e) {
            log.debug("run store {}: could not unregister: {}", where, e.toString());
        }
        pool.close();
    }

    /** Sends {@code payload} on {@code channel} when {@code c}'s transaction commits (nothing if it rolls back). */
    static void notify(Connection c, String channel, String payload) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            s.setString(1, channel);
            s.setString(2, payload);
            s.execute();
        }
    }

    /** SQL: whether run owner {@code o} beat its heartbeat within its own lease (not the asker's). */
    static final String ALIVE = "o.heartbeat_at > now() - make_interval(secs => o.lease_seconds)";

    /** This process as the rows it records name it: {@code host pid N}. */
    static String recordedBy() {
        return hostName() + " pid " + ProcessHandle.current().pid();
    }

    static String hostName() {
        return dev.codeagent.application.placement.Placements.host();
    }

    /** {@code jdbc:postgresql://host:port/db?user=x&password=y} to {@code postgresql://host:port/db}. */
    static String describe(String jdbcUrl) {
        String s = jdbcUrl.startsWith("jdbc:") ? jdbcUrl.substring(5) : jdbcUrl;
        int q = s.indexOf('?');
        return q < 0 ? s : s.substring(0, q);
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    static String firstLine(String s) {
        if (s == null) {
            return "unknown error";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
