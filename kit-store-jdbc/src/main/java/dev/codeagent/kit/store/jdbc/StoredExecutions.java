package dev.codeagent.kit.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.application.submit.StoredExecution;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Submitted executions in the table every SQL store keeps for them: one row an execution (who submitted it, its
 * status, when it was accepted and finished, its result as stored JSON), written over while it runs. The statements
 * and the row's reading are the stores' shared contract; what differs is passed in: the table's name and how a time
 * is kept (its JDBC type, and a column as the driver returns it to an instant). Each store runs these in its own
 * transactions and turns instants into its time column itself.
 */
public final class StoredExecutions {

    private final String table;
    private final int timeType;
    private final RunJson json;
    private final Function<Object, Instant> time;

    /**
     * @param table the table's name
     * @param timeType the {@link java.sql.Types} of a time column as the store keeps it
     * @param time a time column as the driver returns it ({@code getObject}) to an instant
     */
    public StoredExecutions(String table, int timeType, RunJson json, Function<Object, Instant> time) {
        this.table = Objects.requireNonNull(table, "table");
        this.timeType = timeType;
        this.json = Objects.requireNonNull(json, "json");
        this.time = Objects.requireNonNull(time, "time");
    }

    /** Writes an execution's row, or over it; {@code accepted} and {@code finished} (null: not yet) as the store keeps times. */
    public void save(Connection c, StoredExecution e, Object accepted, Object finished) throws SQLException {
        String result = e.result() == null ? null : json.write(e.result(), e.verdict());
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table + " (id, submitted_by, status, accepted_at,"
                + " finished_at, result) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
                + " finished_at = excluded.finished_at, result = excluded.result")) {
            s.setString(1, e.id());
            s.setString(2, e.owner());
            s.setString(3, e.status().name());
            s.setObject(4, accepted, timeType);
            s.setObject(5, finished, timeType);
            s.setString(6, result);
            s.executeUpdate();
        }
    }

    /** The execution with this id; an unreadable row is an {@link SQLException} naming it. */
    public Optional<StoredExecution> find(Connection c, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT submitted_by, status, accepted_at, finished_at, result"
                + " FROM " + table + " WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                if (!r.next()) {
                    return Optional.empty();
                }
                Object finished = r.getObject(4);
                String result = r.getString(5);
                try {
                    return Optional.of(new StoredExecution(id, r.getString(1), StoredExecution.Status.valueOf(r.getString(2)),
                            time.apply(r.getObject(3)), finished == null ? null : time.apply(finished),
                            result == null ? null : json.execution(result), result == null ? null : json.verdictBeside(result)));
                } catch (JsonProcessingException | IllegalArgumentException e) {
                    throw new SQLException("execution " + id + " is not readable: " + e.getMessage(), e);
                }
            }
        }
    }

    /** Deletes the executions that finished before {@code before} (as the store keeps times); how many. */
    public int forgetEndedBefore(Connection c, Object before) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE finished_at IS NOT NULL AND finished_at < ?")) {
            s.setObject(1, before, timeType);
            return s.executeUpdate();
        }
    }
}
