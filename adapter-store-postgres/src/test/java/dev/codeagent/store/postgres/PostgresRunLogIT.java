package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What the store does beyond the port: owners across processes, notifications, odd values. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresRunLogIT {

    static final Instant T0 = Instant.parse("2025-03-04T05:06:07.123456789Z");

    static Attempt printed(int number, String stdout) {
        Execution e = new Execution(Outcome.OK, 0, null, new CapturedOutput(stdout, false), CapturedOutput.EMPTY,
                Duration.ofMillis(30), Duration.ofMillis(20), 9_000_000L, null, new Isolation("test", Set.of(), Set.of()));
        return new Attempt(number, "print(1)", "print(1)", e, Verdict.accepted(), "", Duration.ofMillis(7), Duration.ofMillis(31));
    }

    @Test
    void marksOnlyRunsWhoseOwnerStoppedBeating() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore alive = PostgresStore.open(config)) {
            PostgresStore dead = PostgresStore.open(config);
            dead.runLog().started(Run.started("of-the-dead", Task.of("x"), T0));
            alive.runLog().started(Run.started("of-the-living", Task.of("y"), T0));
            // the other process dies without a word: its heartbeat stops, its row stays
            stopBeating(dead);
            assertThat(alive.runLog().markInterrupted("its process went away")).isZero();
            Thread.sleep(config.leaseTimeout().toMillis() + 500);

            assertThat(alive.runLog().markInterrupted("its process went away")).isEqualTo(1);
            Run gone = alive.runLog().find("of-the-dead").orElseThrow();
            assertThat(gone.status()).isEqualTo(RunStatus.ERROR);
            assertThat(gone.reason()).isEqualTo("its process went away");
            assertThat(gone.endedAt()).isNotNull();
            assertThat(alive.runLog().find("of-the-living").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        }
    }

    static void stopBeating(PostgresStore log) throws Exception {
        var field = PostgresStore.class.getDeclaredField("db");
        field.setAccessible(true);
        PostgresDatabase db = (PostgresDatabase) field.get(log);
        var beats = PostgresDatabase.class.getDeclaredField("beats");
        beats.setAccessible(true);
        ((java.util.concurrent.ExecutorService) beats.get(db)).shutdownNow();
    }

    @Test
    void tellsAnotherProcessOfEveryChangeToARun() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore writer = PostgresStore.open(config); PostgresStore reader = PostgresStore.open(config);
             RunChanges changes = reader.changes()) {
            BlockingQueue<String> heard = new LinkedBlockingQueue<>();
            try (AutoCloseable w = changes.watch(heard::add)) {
                Thread.sleep(300); // LISTEN is issued on the listener's thread
                writer.runLog().started(Run.started("r", Task.of("x"), T0));
                writer.runLog().attemptFinished("r", printed(1, "1\n"));
                writer.runLog().ended("r", RunStatus.SOLVED, T0.plusSeconds(1), null);
                for (int i = 0; i < 3; i++) {
                    assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("r");
                }
                assertThat(reader.runLog().find("r").orElseThrow().status()).isEqualTo(RunStatus.SOLVED);
            }
        }
    }

    @Test
    void keepsOutputWithNulsAndNanosecondsExactly() {
        try (PostgresStore log = PostgresStore.open(TestCluster.get().freshDatabase())) {
            Run r = Run.started("nul", Task.of("print a NUL"), Instant.parse("0001-01-01T00:00:00.000000001Z"))
                    .withAttempt(printed(1, "a\u0000b\n"))
                    .ended(RunStatus.SOLVED, Instant.parse("9999-12-31T23:59:59.999999999Z"), null);
            log.runLog().started(r);
            assertThat(log.runLog().find("nul")).contains(r);
        }
    }

    @Test
    void keepsStoredRowsAsTheSharedJsonFormWithOwnerAndCopiedColumns() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore log = PostgresStore.open(config)) {
            log.runLog().started(Run.started("r", Task.of("hello"), T0));
            log.runLog().attemptFinished("r", printed(1, "1\n"));
        }
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.user(), config.password());
             PreparedStatement s = c.prepareStatement("SELECT r.prompt, r.language, r.started_at, a.verdict, a.outcome,"
                     + " r.owner_id IS NOT NULL, a.recorded_by FROM runs r JOIN attempts a ON a.run_id = r.id")) {
            try (ResultSet row = s.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(List.of(row.getString(1), row.getString(2), row.getBigDecimal(3).toPlainString(),
                        row.getString(4), row.getString(5), row.getString(6)))
                        .containsExactly("hello", "python", "1741064767.123456789", "ACCEPTED", "OK", "t");
                // placement: the host and process that recorded the attempt, and the tier that ran it
                assertThat(row.getString(7)).isEqualTo(PostgresDatabase.hostName() + " pid " + ProcessHandle.current().pid()
                        + ", tier test");
            }
        }
    }

    @Test
    void readsRowsFromBeforeOwnersWereKeptAsBelongingToNoOne() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        // the schema as the previous release left it, with a run in it
        org.flywaydb.core.Flyway.configure().dataSource(config.jdbcUrl(), config.user(), config.password())
                .locations("classpath:db/codeagent-postgres").table("codeagent_schema_history").target("4").load().migrate();
        String task = new dev.codeagent.kit.store.jdbc.RunJson().write(Task.of("from before"));
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.user(), config.password());
             PreparedStatement s = c.prepareStatement("INSERT INTO runs (id, prompt, language, task, status, started_at, ended_at)"
                     + " VALUES ('before', 'from before', 'python', ?, 'SOLVED', 1741064767.123456789, 1741064768)")) {
            s.setString(1, task);
            s.executeUpdate();
        }

        try (PostgresStore log = PostgresStore.open(config)) {
            Run before = log.runLog().find("before").orElseThrow();
            assertThat(before.owner()).isNull();
            assertThat(before.status()).isEqualTo(RunStatus.SOLVED);
            log.runLog().started(Run.started("after", Task.of("x"), T0, "key:alice"));
            assertThat(log.runLog().recentOwnedBy("key:alice", 10, null)).extracting(Run::id).containsExactly("after");
            assertThat(log.runLog().recent(10, null)).extracting(Run::id).containsExactlyInAnyOrder("before", "after");
        }
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.user(), config.password());
             PreparedStatement s = c.prepareStatement("SELECT id, started_by FROM runs ORDER BY id");
             ResultSet r = s.executeQuery()) {
            assertThat(r.next()).isTrue();
            assertThat(List.of(r.getString(1), r.getString(2))).containsExactly("after", "key:alice");
            assertThat(r.next()).isTrue();
            assertThat(r.getString(1)).isEqualTo("before");
            assertThat(r.getString(2)).isNull();
        }
    }

    @Test
    void aQueuedRunReachesItsWorkerWithItsOwner() {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        try (PostgresStore door = PostgresStore.open(config); PostgresStore worker = PostgresStore.open(config)) {
            door.workQueue().enqueue(Run.started("queued", Task.of("x"), T0, "key:alice"));
            var claim = worker.workQueue().claim().orElseThrow();
            assertThat(claim.run().owner()).isEqualTo("key:alice");
            worker.runLog().attemptFinished("queued", printed(1, "1\n"));
            worker.runLog().ended("queued", RunStatus.SOLVED, T0.plusSeconds(1), null);
            worker.workQueue().finished("queued");
            assertThat(door.runLog().find("queued").orElseThrow().owner()).isEqualTo("key:alice");
            assertThat(door.runLog().recentOwnedBy("key:alice", 10, null)).extracting(Run::id).containsExactly("queued");
        }
    }

    @Test
    void usesItsClockForRunsItMarks() {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        Instant fixed = Instant.parse("2030-01-01T00:00:00Z");
        try (PostgresStore log = PostgresStore.open(config);
             PostgresStore other = new PostgresStore(PostgresDatabase.open(config), Clock.fixed(fixed, java.time.ZoneOffset.UTC))) {
            try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.user(), config.password());
                 PreparedStatement s = c.prepareStatement("INSERT INTO runs (id, prompt, language, task, status, started_at)"
                         + " SELECT 'orphan', prompt, language, task, 'RUNNING', started_at FROM runs WHERE id = 'seed'")) {
                log.runLog().started(Run.started("seed", Task.of("x"), T0));
                s.executeUpdate();
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
            assertThat(other.runLog().markInterrupted("no owner recorded")).isEqualTo(1);
            assertThat(log.runLog().find("orphan").orElseThrow().endedAt()).isEqualTo(fixed);
        }
    }
}
