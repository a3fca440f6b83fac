package dev.codeagent.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.submit.Evaluation;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.application.submit.EvaluationLogContractTest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The evaluation log's contract on a SQLite file, and an evaluation kept across reopening it. */
class SqliteEvaluationLogTest extends EvaluationLogContractTest {

    @TempDir
    Path dir;
    private final List<SqliteRunLog> open = new ArrayList<>();

    @Override
    protected EvaluationLog newLog() {
        SqliteRunLog file = SqliteRunLog.open(dir.resolve("runs-" + open.size() + ".db"));
        open.add(file);
        return new SqliteEvaluationLog(file);
    }

    @AfterEach
    void close() {
        open.forEach(SqliteRunLog::close);
    }

    @Test
    void aDoneEvaluationIsReadBackAfterReopening() {
        Path file = dir.resolve("kept.db");
        Evaluation done = new Evaluation("ev-9", "key:ann", "two problems", Evaluation.Status.DONE, T0, T0.plusSeconds(2), 2, 4,
                3, 1, null, report());
        try (SqliteRunLog log = SqliteRunLog.open(file)) {
            SqliteEvaluationLog evaluations = new SqliteEvaluationLog(log);
            evaluations.add(queued("ev-9", "key:ann", T0));
            evaluations.update(done);
        }
        try (SqliteRunLog log = SqliteRunLog.open(file)) {
            assertThat(new SqliteEvaluationLog(log).find("ev-9")).contains(done);
        }
    }
}
