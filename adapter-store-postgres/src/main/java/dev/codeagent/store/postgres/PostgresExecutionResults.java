package dev.codeagent.store.postgres;

import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.kit.store.jdbc.RunJson;
import dev.codeagent.kit.store.jdbc.StoredExecutions;
import java.math.BigDecimal;
import java.sql.Types;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Submitted executions in the shared database (table {@code submitted_executions}): they survive a restart, and any
 * front door of the database answers for them. The rows are {@link StoredExecutions}', times as exact seconds.
 */
final class PostgresExecutionResults implements ExecutionResults {

    private final PostgresDatabase db;
    private final StoredExecutions rows = new StoredExecutions("submitted_executions", Types.NUMERIC, new RunJson(),
            at -> PostgresRunLog.instant((BigDecimal) at));

    PostgresExecutionResults(PostgresDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    @Override
    public void save(StoredExecution e) {
        BigDecimal accepted = PostgresRunLog.seconds(e.acceptedAt());
        BigDecimal finished = e.finishedAt() == null ? null : PostgresRunLog.seconds(e.finishedAt());
        db.transaction("record execution " + e.id(), (c, retry) -> {
            rows.save(c, e, accepted, finished);
            return null;
        });
    }

    @Override
    public Optional<StoredExecution> find(String id) {
        Objects.requireNonNull(id, "id");
        return db.transaction("read execution " + id, (c, retry) -> rows.find(c, id));
    }

    @Override
    public int forgetEndedBefore(Instant before) {
        BigDecimal at = PostgresRunLog.seconds(before);
        return db.transaction("forget old executions", (c, retry) -> rows.forgetEndedBefore(c, at));
    }
}
