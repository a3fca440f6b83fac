package dev.codeagent.kit.store.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.codeagent.application.submit.Evaluation;
import dev.codeagent.application.view.EvaluationReportView;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Evaluations sent to a server, in the table every SQL store keeps for them: one row an evaluation (whose, its status
 * and counts, when it was sent and ended), written over as it runs, and its report once done. The report is kept as
 * the report's own published JSON ({@link EvaluationReportView}, schema {@value EvaluationReportView#SCHEMA}: what
 * {@code codeagent eval --report} inlines and the console renders), so a stored report is read back as it was shown.
 * The statements are the stores' shared contract; the table's name and how a time is kept are passed in, as for
 * {@link StoredExecutions}.
 */
public final class StoredEvaluations {

    private static final String COLUMNS = "id, owner, subject, status, created_at, ended_at, problems, samples, done,"
            + " passed, error, report";
    private final ObjectMapper mapper = new ObjectMapper()
            // a row a newer version wrote with more fields is still read
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private final String table;
    private final int timeType;
    private final Function<Object, Instant> time;

    /**
     * @param table the table's name
     * @param timeType the {@link java.sql.Types} of a time column as the store keeps it
     * @param time a time column as the driver returns it ({@code getObject}) to an instant
     */
    public StoredEvaluations(String table, int timeType, Function<Object, Instant> time) {
        this.table = Objects.requireNonNull(table, "table");
        this.timeType = timeType;
        this.time = Objects.requireNonNull(time, "time");
    }

    /** Adds a new evaluation's row; {@code created} and {@code ended} as the store keeps times. */
    public void insert(Connection c, Evaluation e, Object created, Object ended) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table + " (" + COLUMNS + ")"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            s.setString(1, e.id());
            s.setString(2, e.owner());
            s.setString(3, e.subject());
            s.setString(4, e.status().name());
            s.setObject(5, created, timeType);
            s.setObject(6, ended, timeType);
            s.setInt(7, e.problems());
            s.setInt(8, e.samples());
            s.setInt(9, e.done());
            s.setInt(10, e.passed());
            s.setString(11, e.error());
            s.setString(12, report(e));
            s.executeUpdate();
        }
    }

    /** Writes over an evaluation's row; false when there is none (forgotten), and nothing is written then. */
    public boolean update(Connection c, Evaluation e, Object ended) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("UPDATE " + table + " SET status = ?, ended_at = ?, done = ?,"
                + " passed = ?, error = ?, report = ? WHERE id = ?")) {
            s.setString(1, e.status().name());
            s.setObject(2, ended, timeType);
            s.setInt(3, e.done());
            s.setInt(4, e.passed());
            s.setString(5, e.error());
            s.setString(6, report(e));
            s.setString(7, e.id());
            return s.executeUpdate() == 1;
        }
    }

    public Optional<Evaluation> find(Connection c, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table + " WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(row(r)) : Optional.empty();
            }
        }
    }

    /** An owner's evaluations (every owner's when null), newest first, at most {@code limit}. */
    public List<Evaluation> list(Connection c, String owner, int limit) throws SQLException {
        String where = owner == null ? "" : " WHERE owner = ?";
        try (PreparedStatement s = c.prepareStatement("SELECT " + COLUMNS + " FROM " + table + where
                + " ORDER BY created_at DESC, id DESC LIMIT ?")) {
            int i = 1;
            if (owner != null) {
                s.setString(i++, owner);
            }
            s.setInt(i, limit);
            List<Evaluation> out = new ArrayList<>();
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(row(r));
                }
            }
            return out;
        }
    }

    public boolean delete(Connection c, String id) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("DELETE FROM " + table + " WHERE id = ?")) {
            s.setString(1, id);
            return s.executeUpdate() == 1;
        }
    }

    private String report(Evaluation e) throws SQLException {
        if (e.report() == null) {
            return null;
        }
        try {
            return mapper.writeValueAsString(e.report());
        } catch (JsonProcessingException ex) {
            throw new SQLException("evaluation " + e.id() + ": cannot write its report: " + ex.getMessage(), ex);
        }
    }

    /** The row as an evaluation; an unreadable one is an {@link SQLException} naming it. */
    private Evaluation row(ResultSet r) throws SQLException {
        String id = r.getString(1);
        Object ended = r.getObject(6);
        String report = r.getString(12);
        try {
            return new Evaluation(id, r.getString(2), r.getString(3), Evaluation.Status.valueOf(r.getString(4)),
                    time.apply(r.getObject(5)), ended == null ? null : time.apply(ended), r.getInt(7), r.getInt(8),
                    r.getInt(9), r.getInt(10), r.getString(11),
                    report == null ? null : mapper.readValue(report, EvaluationReportView.class));
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new SQLException("evaluation " + id + " is not readable: " + e.getMessage(), e);
        }
    }
}
