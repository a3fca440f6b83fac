package dev.codeagent.store.sqlite;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.kit.store.jdbc.RunJson;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Submitted executions in the run log's SQLite file (table {@code executions}), through its connection and its
 * transactions: they survive a restart as the runs do.
 */
final class SqliteExecutionResults implements ExecutionResults {

    private final SqliteRunLog file;
    private final RunJson json = new RunJson();

    SqliteExecutionResults(SqliteRunLog file) {
        this.file = Objects.requireNonNull(file, "file");
    }

    @Override
    public void save(StoredExecution e) {
        String result = e.result() == null ? null : json.write(e.result(), e.verdict());
        String accepted = SqliteRunLog.time(e.acceptedAt(), "acceptedAt");
        String finished = e.finishedAt() == null ? null : SqliteRunLog.time(e.finishedAt(), "finishedAt");
        file.write("record execution " + e.id(), c -> {
            try (PreparedStatement s = c.prepareStatement("INSERT INTO executions (id, submitted_by, status, accepted_at,"
                    + " finished_at, result) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
                    + " finished_at = excluded.finished_at, result = excluded.result")) {
                s.setString(1, e.id());
                s.setString(2, e.owner());
                s.setString(3, e.status().name());
                s.setString(4, accepted);
                s.setString(5, finished);
                s.setString(6, result);
                s.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public Optional<StoredExecution> find(String id) {
        Objects.requireNonNull(id, "id");
        return file.read("read execution " + id, c -> {
            try (PreparedStatement s = c.prepareStatement("SELECT submitted_by, status, accepted_at, finished_at, result"
                    + " FROM executions WHERE id = ?")) {
                s.setString(1, id);
                try (ResultSet r = s.executeQuery()) {
                    if (!r.next()) {
                        return Optional.empty();
                    }
                    String finished = r.getString(4);
                    String result = r.getString(5);
                    try {
                        return Optional.of(new StoredExecution(id, r.getString(1), StoredExecution.Status.valueOf(r.getString(2)),
                                Instant.parse(r.getString(3)), finished == null ? null : Instant.parse(finished),
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
        String at = SqliteRunLog.time(before, "before");
        return file.write("forget old executions", c -> {
            try (PreparedStatement s = c.prepareStatement("DELETE FROM executions WHERE finished_at IS NOT NULL AND finished_at < ?")) {
                s.setString(1, at);
                return s.executeUpdate();
            }
        });
    }
}
