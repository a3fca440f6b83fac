package dev.codeagent.store.postgres;

import dev.codeagent.application.submit.Evaluation;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.kit.store.jdbc.StoredEvaluations;
import java.math.BigDecimal;
import java.sql.Types;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Evaluations in the shared database (table {@code evaluations}): they survive a restart, and every front door of the
 * database answers for them (the one that took an evaluation judges it). The rows are {@link StoredEvaluations}', times
 * as exact seconds.
 */
final class PostgresEvaluationLog implements EvaluationLog {

    private final PostgresDatabase db;
    private final StoredEvaluations rows = new StoredEvaluations("evaluations", Types.NUMERIC,
            at -> PostgresRunLog.instant((BigDecimal) at));

    PostgresEvaluationLog(PostgresDatabase db) {
        this.db = Objects.requireNonNull(db, "db");
    }

    private static BigDecimal ended(Evaluation e) {
        return e.endedAt() == null ? null : PostgresRunLog.seconds(e.endedAt());
    }

    @Override
    public void add(Evaluation e) {
        BigDecimal created = PostgresRunLog.seconds(e.createdAt());
        BigDecimal ended = ended(e);
        db.transaction("record evaluation " + e.id(), (c, retry) -> {
            rows.insert(c, e, created, ended);
            return null;
        });
    }

    @Override
    public boolean update(Evaluation e) {
        BigDecimal ended = ended(e);
        return db.transaction("update evaluation " + e.id(), (c, retry) -> rows.update(c, e, ended));
    }

    @Override
    public Optional<Evaluation> find(String id) {
        Objects.requireNonNull(id, "id");
        return db.transaction("read evaluation " + id, (c, retry) -> rows.find(c, id));
    }

    @Override
    public List<Evaluation> list(String owner, int limit) {
        return db.transaction("list evaluations", (c, retry) -> rows.list(c, owner, limit));
    }

    @Override
    public boolean delete(String id) {
        return db.transaction("forget evaluation " + id, (c, retry) -> rows.delete(c, id));
    }
}
