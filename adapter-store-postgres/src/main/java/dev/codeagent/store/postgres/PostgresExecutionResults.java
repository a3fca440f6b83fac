package dev.codeagent.store.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.kit.store.jdbc.RunJson;
import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Submitted executions in the shared database (table {@code submitted_executions}): they survive a restart, and any
 * front door of the database answers for them.
 */
final class PostgresExecutionResults implements ExecutionResults {

    private final PostgresDatabase db;
    private final RunJson json = new RunJson();

    PostgresExecutionResults(PostgresDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    @Override
    public void save(StoredExecution e) {
        String result = e.result() == null ? null : json.write(e.result(), e.verdict());
        BigDecimal finished = e.finishedAt() == null ? null : PostgresRunLog.seconds(e.finishedAt());
        db.transaction("record execution " + e.id(), (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO submitted_executions (id, submitted_by, status,"
                    + " accepted_at, finished_at, result) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
                    + " status = excluded.status, finished_at = excluded.finished_at, result = excluded.result")) {
                s.setString(1, e.id());
                s.setString(2, e.owner());
                s.setString(3, e.status().name());
                s.setBigDecimal(4, PostgresRunLog.seconds(e.acceptedAt()));
                s.setBigDecimal(5, finished);
                s.setString(6, result);
                s.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public Optional<StoredExecution> find(String id) {
        Objects.requireNonNull(id, "id");
        return db.transaction("read execution " + id, (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("SELECT submitted_by, status, accepted_at, finished_at, result"
                    + " FROM submitted_executions WHERE id = ?")) {
                s.setString(1, id);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return Optional.empty();
                    }
                    BigDecimal finished = r.getBigDecimal(4);
                    String result = r.getString(5);
                    try {
                        return Optional.of(new StoredExecution(id, r.getString(1), StoredExecution.Status.valueOf(r.getString(2)),
                                PostgresRunLog.instant(r.getBigDecimal(3)), finished == null ? null : PostgresRunLog.instant(finished),
                                result == null ? null : json.execution(result), result == null ? null : json.verdictBeside(result)));
                    } catch (JsonProcessingException | IllegalArgumentException e) {
                        throw new java.sql.SQLException("execution " + id + " is not readable: " + e.getMessage(), e);
                    }
                }
            }
        });
    }

    @Override
    public int forgetEndedBefore(Instant before) {
        BigDecimal at = PostgresRunLog.seconds(before);
        return db.transaction("forget old executions", (c, retry) -> {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM submitted_executions WHERE finished_at < ?")) {
                s.setBigDecimal(1, at);
                return s.executeUpdate();
            }
        });
    }
}
