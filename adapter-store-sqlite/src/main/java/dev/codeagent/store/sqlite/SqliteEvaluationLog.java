package dev.codeagent.store.sqlite;

import dev.codeagent.application.submit.Evaluation;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.kit.store.jdbc.StoredEvaluations;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Evaluations in the run log's SQLite file (table {@code evaluations}), through its connection and its transactions:
 * they survive a restart as the runs do. The rows are {@link StoredEvaluations}', times as ISO text.
 */
final class SqliteEvaluationLog implements EvaluationLog {

    private final SqliteRunLog file;
    private final StoredEvaluations rows = new StoredEvaluations("evaluations", Types.VARCHAR,
            at -> Instant.parse((String) at));

    SqliteEvaluationLog(SqliteRunLog file) {
        this.file = Objects.requireNonNull(file, "file");
    }

    private static String ended(Evaluation e) {
        return e.endedAt() == null ? null : SqliteRunLog.time(e.endedAt(), "endedAt");
    }

    @Override
    public void add(Evaluation e) {
        String created = SqliteRunLog.time(e.createdAt(), "createdAt");
        String ended = ended(e);
        file.write("record evaluation " + e.id(), c -> {
            rows.insert(c, e, created, ended);
            return null;
        });
    }

    @Override
    public boolean update(Evaluation e) {
        String ended = ended(e);
        return file.write("update evaluation " + e.id(), c -> rows.update(c, e, ended));
    }

    @Override
    public Optional<Evaluation> find(String id) {
        Objects.requireNonNull(id, "id");
        return file.read("read evaluation " + id, c -> rows.find(c, id));
    }

    @Override
    public List<Evaluation> list(String owner, int limit) {
        return file.read("list evaluations", c -> rows.list(c, owner, limit));
    }

    @Override
    public boolean delete(String id) {
        return file.write("forget evaluation " + id, c -> rows.delete(c, id));
    }
}
