package dev.codeagent.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.kit.store.jdbc.Samples;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteExecutionResultsTest {

    @TempDir
    Path dir;

    @Test
    void keepsASubmissionThroughItsStatusesAndAcrossReopening() {
        Path file = dir.resolve("runs.db");
        Execution result = Samples.runtimeError(1).execution();
        StoredExecution queued = new StoredExecution("ex_1", "key:a", StoredExecution.Status.QUEUED, Samples.T0, null, null);
        try (SqliteRunLog log = SqliteRunLog.open(file)) {
            SqliteExecutionResults results = new SqliteExecutionResults(log);
            results.save(queued);
            assertThat(results.find("ex_1")).contains(queued);
            results.save(queued.running());
            assertThat(results.find("ex_1").orElseThrow().status()).isEqualTo(StoredExecution.Status.RUNNING);
            results.save(queued.done(result, Samples.T0.plusSeconds(2)));
            assertThat(results.find("ex_2")).isEmpty();
        }
        try (SqliteRunLog log = SqliteRunLog.open(file)) {
            StoredExecution again = new SqliteExecutionResults(log).find("ex_1").orElseThrow();
            // the whole execution, as RunJson stores it: outputs, times, isolation
            assertThat(again).isEqualTo(queued.done(result, Samples.T0.plusSeconds(2)));
        }
    }

    @Test
    void keepsAJudgementsVerdictBesideItsExecutionAcrossReopening() {
        Path file = dir.resolve("runs.db");
        dev.codeagent.domain.solving.Attempt wrong = Samples.runtimeError(1);
        StoredExecution done = new StoredExecution("ju_1", "key:a", StoredExecution.Status.QUEUED, Samples.T0, null, null)
                .done(wrong.execution(), wrong.verdict(), Samples.T0.plusSeconds(1));
        try (SqliteRunLog log = SqliteRunLog.open(file)) {
            new SqliteExecutionResults(log).save(done);
        }
        try (SqliteRunLog log = SqliteRunLog.open(file)) {
            StoredExecution again = new SqliteExecutionResults(log).find("ju_1").orElseThrow();
            // the verdict with its error (type, line, source line, frames), not re-derived: the code is not kept
            assertThat(again.verdict()).isNotNull().isEqualTo(wrong.verdict());
            assertThat(again).isEqualTo(done);
        }
    }

    @Test
    void forgetsOnlyWhatEndedBeforeTheGivenTime() {
        try (SqliteRunLog log = SqliteRunLog.open(dir.resolve("runs.db"))) {
            SqliteExecutionResults results = new SqliteExecutionResults(log);
            Execution result = Samples.accepted(1).execution();
            Instant t = Samples.T0;
            results.save(new StoredExecution("ex_old", null, StoredExecution.Status.QUEUED, t, null, null).done(result, t));
            results.save(new StoredExecution("ex_new", null, StoredExecution.Status.QUEUED, t, null, null)
                    .done(result, t.plus(Duration.ofHours(2))));
            results.save(new StoredExecution("ex_waiting", null, StoredExecution.Status.QUEUED, t, null, null));
            assertThat(results.forgetEndedBefore(t.plus(Duration.ofHours(1)))).isEqualTo(1);
            assertThat(results.find("ex_old")).isEmpty();
            assertThat(results.find("ex_new")).isPresent();
            assertThat(results.find("ex_waiting")).isPresent();
        }
    }
}
