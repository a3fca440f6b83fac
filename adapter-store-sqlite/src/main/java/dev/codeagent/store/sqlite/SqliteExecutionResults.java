package dev.codeagent.store.sqlite;

import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.kit.store.jdbc.RunJson;
import dev.codeagent.kit.store.jdbc.StoredExecutions;
import java.sql.Types;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Submitted executions in the run log's SQLite file (table {@code executions}), through its connection and its
 * transactions: they survive a restart as the runs do. The rows are {@link StoredExecutions}', times as ISO text.
 */
final class SqliteExecutionResults implements ExecutionResults {

    private final SqliteRunLog file;
    private final StoredExecutions rows = new StoredExecutions("executions", Types.VARCHAR, new RunJson(),
            at -> Instant.parse((String) at));

    SqliteExecutionResults(SqliteRunLog file) {
        this.file = Objects.requireNonNull(file, "file");
    }

    @Override
    public void save(StoredExecution e) {
        String accepted = SqliteRunLog.time(e.acceptedAt(), "acceptedAt");
        String finished = e.finishedAt() == null ? null : SqliteRunLog.time(e.finishedAt(), "finishedAt");
        file.write("record execution " + e.id(), c -> {
            rows.save(c, e, accepted, finished);
            return null;
        });
    }

    @Override
    public Optional<StoredExecution> find(String id) {
        Objects.requireNonNull(id, "id");
        return file.read("read execution " + id, c -> rows.find(c, id));
    }

    @Override
    public int forgetEndedBefore(Instant before) {
        String at = SqliteRunLog.time(before, "before");
        return file.write("forget old executions", c -> rows.forgetEndedBefore(c, at));
    }
}
