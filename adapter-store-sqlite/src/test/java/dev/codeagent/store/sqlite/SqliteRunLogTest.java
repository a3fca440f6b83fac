package dev.codeagent.store.sqlite;

import dev.codeagent.kit.store.jdbc.Samples;

import dev.codeagent.kit.store.jdbc.RunJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunFilter;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class SqliteRunLogTest {

    @TempDir
    Path dir;

    private Path db;
    private SqliteRunLog log;

    @BeforeEach
    void open() {
        db = dir.resolve("sub/dir/runs.db");
        log = SqliteRunLog.open(db);
    }

    @AfterEach
    void close() {
        log.close();
    }

    // ---- round trips

    @Test
    void roundTripsARunThroughEveryCallExactly() {
        Run expected = Run.started("r1", Samples.fullTask(), Samples.T0);
        log.started(expected);
        List<Attempt> attempts = List.of(Samples.runtimeError(1), Samples.noCode(2), Samples.wrongAnswer(3), Samples.accepted(4));
        for (Attempt a : attempts) {
            log.attemptFinished("r1", a);
            expected = expected.withAttempt(a);
            assertThat(log.find("r1")).contains(expected);
        }
        Instant end = Samples.T0.plusSeconds(9).plusNanos(1);
        log.ended("r1", RunStatus.SOLVED, end, null);
        expected = expected.ended(RunStatus.SOLVED, end, null);

        assertThat(log.find("r1")).contains(expected);
        Run found = log.find("r1").orElseThrow();
        assertThat(found.attempts()).containsExactlyElementsOf(attempts);
        assertThat(found.task()).isEqualTo(Samples.fullTask());
        assertThat(found.startedAt()).isEqualTo(Samples.T0);
        assertThat(found.endedAt()).isEqualTo(end);
    }

    @Test
    void keepsNullAndEmptyFieldsAsTheyWere() {
        log.started(Run.started("bare", Samples.bareTask(), Samples.T0));
        log.attemptFinished("bare", Samples.noCode(1));
        log.attemptFinished("bare", Samples.wrongAnswer(2));
        log.ended("bare", RunStatus.ERROR, Samples.T0.plusMillis(1), "generator refused: bad key");

        Run found = log.find("bare").orElseThrow();
        assertThat(found.task().tests()).isNull();
        assertThat(found.task().expectedOutput()).isNull();
        assertThat(found.task().stdin()).isEmpty();
        assertThat(found.attempts().get(0).execution()).isNull();
        assertThat(found.attempts().get(0).verdict().error()).isNull();
        assertThat(found.attempts().get(0).verdict().difference()).isNull();
        assertThat(found.attempts().get(1).execution().cpuTime()).isNull();
        assertThat(found.attempts().get(1).execution().peakMemoryBytes()).isNull();
        assertThat(found.attempts().get(1).execution().detail()).isNull();
        assertThat(found.attempts().get(1).execution().signal()).isEqualTo(9);
        assertThat(found.attempts().get(1).verdict().difference().expected()).isNull();
        assertThat(found.reason()).isEqualTo("generator refused: bad key");
        assertThat(found.status()).isEqualTo(RunStatus.ERROR);
    }

    @Test
    void keepsEverythingAcrossReopening() throws Exception {
        Run run = Run.started("r", Samples.fullTask(), Samples.T0).withAttempt(Samples.runtimeError(1));
        log.started(run);
        log.close();
        log = SqliteRunLog.open(db);
        assertThat(log.find("r")).contains(run);
        assertThat(pragma(db, "user_version")).isEqualTo(String.valueOf(Migrations.LATEST));
    }

    @Test
    void listsRunsOfAStatusFromAnIndexNotByReadingEveryRun() throws Exception {
        for (int i = 0; i < 200; i++) {
            log.started(Run.started("r" + i, Samples.fullTask(), Samples.T0.plusMillis(i), i % 2 == 0 ? "key:a" : "key:b"));
            if (i % 50 == 0) {
                log.ended("r" + i, RunStatus.FAILED, Samples.T0.plusSeconds(1), null);
            }
        }
        assertThat(log.recent(RunFilter.ALL.withStatuses(Set.of(RunStatus.FAILED)), 20, null)).extracting(Run::id)
                .containsExactly("r150", "r100", "r50", "r0");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            // step 5 replaced step 1's status-only index with ones that also give the order a page is read in
            List<String> indexes = new ArrayList<>();
            try (ResultSet r = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs'"
                    + " AND name LIKE 'runs_by_%' ORDER BY name")) {
                while (r.next()) {
                    indexes.add(r.getString(1));
                }
            }
            assertThat(indexes).containsExactly("runs_by_start", "runs_by_started_by", "runs_by_started_by_status",
                    "runs_by_status_start");
            // the queries StoredRuns builds for one status (what the console asks), everyone's and one owner's; with
            // several statuses the planner may as well read the time-ordered index and filter, which it then chooses
            assertThat(plan(c, "SELECT id FROM runs WHERE status IN ('FAILED') ORDER BY started_at DESC, id DESC LIMIT 20"))
                    .contains("runs_by_status_start").doesNotContain("SCAN runs");
            assertThat(plan(c, "SELECT id FROM runs WHERE started_by = 'key:a' AND status IN ('FAILED')"
                    + " ORDER BY started_at DESC, id DESC LIMIT 20")).contains("runs_by_started_by_status")
                    .doesNotContain("SCAN runs");
        }
    }

    private static String plan(Connection c, String query) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("EXPLAIN QUERY PLAN " + query)) {
            while (r.next()) {
                plan.append(r.getString("detail")).append('\n');
            }
        }
        return plan.toString();
    }

    @Test
    void storesKeyColumnsForQueries() throws Exception {
        log.started(Run.started("k", Samples.fullTask(), Samples.T0));
        log.attemptFinished("k", Samples.runtimeError(1));
        log.attemptFinished("k", Samples.noCode(2));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT prompt, language, status, started_at FROM runs")) {
                assertThat(r.next()).isTrue();
                assertThat(r.getString(1)).isEqualTo(Samples.fullTask().prompt());
                assertThat(r.getString(2)).isEqualTo("javascript");
                assertThat(r.getString(3)).isEqualTo("RUNNING");
                assertThat(r.getString(4)).isEqualTo("2025-03-04T05:06:07.123456789Z");
            }
            try (ResultSet r = s.executeQuery("SELECT number, verdict, outcome FROM attempts ORDER BY number")) {
                assertThat(r.next()).isTrue();
                assertThat(List.of(r.getInt(1), r.getString(2), r.getString(3))).containsExactly(1, "RUNTIME_ERROR", "RUNTIME_ERROR");
                assertThat(r.next()).isTrue();
                assertThat(r.getString(2)).isEqualTo("INTERNAL_ERROR");
                assertThat(r.getString(3)).isNull();
            }
        }
    }

    // ---- misuse

    @Test
    void failsClearlyOnceClosed() {
        log.close();
        log.close();
        assertThatThrownBy(() -> log.find("x")).isInstanceOf(IllegalStateException.class)
                .hasMessage("run log " + db.toAbsolutePath() + " is closed");
    }

    @Test
    void reportsARowItCannotReadNamingIt() throws Exception {
        log.started(Run.started("r", Samples.bareTask(), Samples.T0));
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
            s.execute("INSERT INTO attempts (run_id, number, verdict, outcome, attempt) VALUES ('r', 1, 'ACCEPTED', NULL, '{\"number\": 1}')");
        }
        assertThatThrownBy(() -> log.find("r")).isInstanceOf(RunLogUnavailableException.class)
                .hasMessageStartingWith("run log " + db + ": attempt 1 of run r cannot be read (")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    // ---- listing

    @Test
    void answersLikeTheInMemoryLogForTheSameCalls() {
        InMemoryRunLog memory = new InMemoryRunLog();
        for (RunLog l : List.of(log, memory)) {
            for (int i = 0; i < 12; i++) {
                String id = "r" + (i * 7 % 12);
                l.started(Run.started(id, i % 2 == 0 ? Samples.fullTask() : Samples.bareTask(), Samples.T0.plusSeconds(i % 4)));
                for (int n = 1; n <= i % 3; n++) {
                    l.attemptFinished(id, n == 2 ? Samples.accepted(n) : Samples.runtimeError(n));
                }
                if (i % 3 == 2) {
                    l.ended(id, RunStatus.SOLVED, Samples.T0.plusSeconds(10), null);
                } else if (i % 5 == 0) {
                    l.ended(id, RunStatus.CANCELLED, Samples.T0.plusSeconds(10), "cancelled");
                }
            }
        }
        // every run left RUNNING belongs to this live process: neither marks any
        assertThat(log.markInterrupted("interrupted")).isZero();
        assertThat(memory.markInterrupted("interrupted")).isZero();
        assertThat(log.recent(1000, null)).extracting(Run::status).contains(RunStatus.RUNNING);
        assertThat(log.recent(1000, null)).isEqualTo(memory.recent(1000, null));
        for (String before : new String[] {null, "r0", "r5", "r11"}) {
            assertThat(log.recent(3, before)).as("page after %s", before).isEqualTo(memory.recent(3, before));
        }
        assertThat(log.find("r3")).isEqualTo(memory.find("r3"));
    }

    // ---- interrupted runs

    @Test
    void recordsThisProcessAsTheOwnerOfARun() throws Exception {
        log.started(Run.started("mine", Samples.bareTask(), Samples.T0));
        ProcessOwner me = ProcessOwner.current();
        assertThat(me.pid()).isEqualTo(ProcessHandle.current().pid());
        if (Files.isDirectory(Path.of("/proc"))) {
            assertThat(me.start()).matches("proc:[0-9]+");
            assertThat(me.bootId()).isEqualTo(Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip());
        }
        assertThat(owner(db, "mine")).isEqualTo(me);
    }

    @Test
    @Timeout(30)
    void leavesRunsOfAnotherLiveProcessAloneAndMarksThemOnceItDies() throws Exception {
        log.started(Run.started("theirs", Samples.bareTask(), Samples.T0));
        Process other = new ProcessBuilder("sleep", "60").start();
        try {
            setOwner(db, "theirs", ProcessOwner.of(other.toHandle()));

            assertThat(log.markInterrupted("interrupted")).isZero();
            assertThat(log.find("theirs").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        } finally {
            other.destroyForcibly();
            assertThat(other.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(log.markInterrupted("interrupted")).isEqualTo(1);
        assertThat(log.find("theirs").orElseThrow().status()).isEqualTo(RunStatus.ERROR);
    }

    @Test
    void marksRunsLeftRunningByEndedProcessesWithTheReason() throws Exception {
        Instant now = Instant.parse("2025-06-01T00:00:00.000000001Z");
        log.close();
        log = SqliteRunLog.open(db, Clock.fixed(now, ZoneOffset.UTC));
        ProcessOwner dead = deadProcess();
        log.started(Run.started("dead1", Samples.bareTask(), Samples.T0));
        log.attemptFinished("dead1", Samples.noCode(1));
        log.started(Run.started("dead2", Samples.bareTask(), Samples.T0));
        log.started(Run.started("done", Samples.bareTask(), Samples.T0));
        log.ended("done", RunStatus.FAILED, Samples.T0.plusSeconds(1), null);
        log.started(Run.started("mine", Samples.bareTask(), Samples.T0));
        for (String id : List.of("dead1", "dead2", "done")) {
            setOwner(db, id, dead);
        }

        assertThat(log.markInterrupted("the process ended before the run did")).isEqualTo(2);

        Run dead1 = log.find("dead1").orElseThrow();
        assertThat(dead1.status()).isEqualTo(RunStatus.ERROR);
        assertThat(dead1.reason()).isEqualTo("the process ended before the run did");
        assertThat(dead1.endedAt()).isEqualTo(now);
        assertThat(dead1.attempts()).containsExactly(Samples.noCode(1));
        assertThat(log.find("dead2").orElseThrow().status()).isEqualTo(RunStatus.ERROR);
        Run done = log.find("done").orElseThrow();
        assertThat(done.status()).isEqualTo(RunStatus.FAILED);
        assertThat(done.reason()).isNull();
        assertThat(log.find("mine").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        assertThat(log.markInterrupted("again")).isZero();
    }

    @Test
    void marksARunWhoseOwnersPidNowBelongsToAnotherProcess() throws Exception {
        ProcessOwner me = ProcessOwner.current();
        assertThat(me.start()).isNotNull();
        String scheme = me.start().substring(0, me.start().indexOf(':'));
        log.started(Run.started("reused", Samples.bareTask(), Samples.T0));
        // our own pid, alive, but a process that started at another time had it before
        setOwner(db, "reused", new ProcessOwner(me.bootId(), me.pid(), scheme + ":1"));

        assertThat(log.markInterrupted("interrupted")).isEqualTo(1);
        assertThat(log.find("reused").orElseThrow().status()).isEqualTo(RunStatus.ERROR);
    }

    @Test
    void marksARunOfAnEarlierBoot() throws Exception {
        ProcessOwner me = ProcessOwner.current();
        assumeTrue(me.bootId() != null, "the boot id is readable here");
        log.started(Run.started("before-reboot", Samples.bareTask(), Samples.T0));
        // same pid and start ticks can come round again after a reboot
        setOwner(db, "before-reboot", new ProcessOwner("00000000-0000-0000-0000-000000000000", me.pid(), me.start()));

        assertThat(log.markInterrupted("interrupted")).isEqualTo(1);
        assertThat(log.find("before-reboot").orElseThrow().status()).isEqualTo(RunStatus.ERROR);
    }

    @Test
    void marksARunWithNoOwnerAndLeavesOneWhoseOwnerCannotBeChecked() throws Exception {
        ProcessOwner me = ProcessOwner.current();
        log.started(Run.started("no-owner", Samples.bareTask(), Samples.T0));
        log.started(Run.started("unknown-scheme", Samples.bareTask(), Samples.T0));
        setOwner(db, "no-owner", null);
        setOwner(db, "unknown-scheme", new ProcessOwner(me.bootId(), me.pid(), "some-future-scheme:42"));

        assertThat(log.markInterrupted("interrupted")).isEqualTo(1);
        assertThat(log.find("no-owner").orElseThrow().status()).isEqualTo(RunStatus.ERROR);
        assertThat(log.find("unknown-scheme").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
    }

    @Test
    void migratesAVersionOneFileAndMarksItsRunsLeftRunning() throws Exception {
        Path old = dir.resolve("v1.db");
        RunJson json = new RunJson();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + old); Statement s = c.createStatement()) {
            for (String sql : Migrations.ALL.get(0).statements()) {
                s.execute(sql);
            }
            s.execute("PRAGMA user_version = 1");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO runs"
                    + " (id, prompt, language, task, status, started_at, ended_at, reason) VALUES (?, ?, 'python', ?, ?, ?, ?, ?)")) {
                for (String[] row : new String[][] {
                        {"left", "RUNNING", null, null},
                        {"solved", "SOLVED", "2025-03-04T05:06:08.000000000Z", null}}) {
                    p.setString(1, row[0]);
                    p.setString(2, Samples.bareTask().prompt());
                    p.setString(3, json.write(Samples.bareTask()));
                    p.setString(4, row[1]);
                    p.setString(5, "2025-03-04T05:06:07.123456789Z");
                    p.setString(6, row[2]);
                    p.setString(7, row[3]);
                    p.executeUpdate();
                }
            }
            try (PreparedStatement p = c.prepareStatement(
                    "INSERT INTO attempts (run_id, number, verdict, outcome, attempt) VALUES ('left', 1, 'RUNTIME_ERROR', 'RUNTIME_ERROR', ?)")) {
                p.setString(1, json.write(Samples.runtimeError(1)));
                p.executeUpdate();
            }
        }

        try (SqliteRunLog migrated = SqliteRunLog.open(old)) {
            assertThat(pragma(old, "user_version")).isEqualTo(String.valueOf(Migrations.LATEST));
            assertThat(column(old, "SELECT name FROM pragma_table_info('runs') WHERE name LIKE 'owner%' ORDER BY cid"))
                    .containsExactly("owner_boot_id", "owner_pid", "owner_start");
            assertThat(owner(old, "left")).isNull();
            assertThat(migrated.find("left")).contains(
                    Run.started("left", Samples.bareTask(), Samples.T0).withAttempt(Samples.runtimeError(1)));
            migrated.started(Run.started("new", Samples.bareTask(), Samples.T0));

            assertThat(migrated.markInterrupted("interrupted")).isEqualTo(1);

            Run left = migrated.find("left").orElseThrow();
            assertThat(left.status()).isEqualTo(RunStatus.ERROR);
            assertThat(left.attempts()).containsExactly(Samples.runtimeError(1));
            assertThat(migrated.find("solved").orElseThrow().status()).isEqualTo(RunStatus.SOLVED);
            assertThat(migrated.find("new").orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
        }
        assertThat(pragma(old, "integrity_check")).isEqualTo("ok");
    }

    @Test
    void migratesAVersionTwoFileWhoseRunsThenBelongToNoOne() throws Exception {
        Path old = dir.resolve("v2.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + old); Statement s = c.createStatement()) {
            for (Migrations.Migration m : Migrations.ALL.subList(0, 2)) {
                for (String sql : m.statements()) {
                    s.execute(sql);
                }
            }
            s.execute("PRAGMA user_version = 2");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO runs (id, prompt, language, task, status, started_at,"
                    + " ended_at) VALUES ('before', ?, 'python', ?, 'SOLVED', '2025-03-04T05:06:07.123456789Z',"
                    + " '2025-03-04T05:06:08.000000000Z')")) {
                p.setString(1, Samples.bareTask().prompt());
                p.setString(2, new RunJson().write(Samples.bareTask()));
                p.executeUpdate();
            }
        }

        try (SqliteRunLog migrated = SqliteRunLog.open(old)) {
            assertThat(column(old, "SELECT name FROM pragma_table_info('runs') WHERE name = 'started_by'")).containsExactly("started_by");
            Run before = migrated.find("before").orElseThrow();
            assertThat(before.owner()).isNull();
            assertThat(before.status()).isEqualTo(RunStatus.SOLVED);
            migrated.started(Run.started("after", Samples.bareTask(), Samples.T0, "local:alice"));

            assertThat(migrated.recentOwnedBy("local:alice", 10, null)).extracting(Run::id).containsExactly("after");
            assertThat(migrated.recent(10, null)).extracting(Run::id).containsExactlyInAnyOrder("before", "after");
        }
        assertThat(column(old, "SELECT coalesce(started_by, '<none>') FROM runs ORDER BY id")).containsExactly("local:alice", "<none>");
    }

    @Test
    void keepsTheOwnerInItsOwnColumnAsGiven() throws Exception {
        // an owner is matched exactly: no case folding, no LIKE wildcards
        log.started(Run.started("pct", Samples.bareTask(), Samples.T0, "key:%"));
        log.started(Run.started("upper", Samples.bareTask(), Samples.T0, "key:ALICE"));
        assertThat(column(db, "SELECT started_by FROM runs ORDER BY id")).containsExactly("key:%", "key:ALICE");
        assertThat(log.recentOwnedBy("key:alice", 10, null)).isEmpty();
        assertThat(log.recentOwnedBy("key:%", 10, null)).extracting(Run::id).containsExactly("pct");
        assertThat(log.find("upper").orElseThrow().owner()).isEqualTo("key:ALICE");
    }

    // ---- concurrency

    @Test
    @Timeout(30)
    void waitsForAnotherProcessesWriteInsteadOfFailing() throws Exception {
        log.started(Run.started("r", Samples.bareTask(), Samples.T0));
        long held;
        // a second connection stands in for another process (the HTTP server while the CLI writes)
        try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = other.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            s.execute("UPDATE runs SET reason = 'other' WHERE id = 'r'");
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                long start = System.nanoTime();
                Future<?> write = pool.submit(() -> log.attemptFinished("r", Samples.noCode(1)));
                Thread.sleep(300);
                assertThat(write).isNotDone();
                s.execute("COMMIT");
                write.get(10, TimeUnit.SECONDS);
                held = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(held).isGreaterThanOrEqualTo(300);
        Run r = log.find("r").orElseThrow();
        assertThat(r.reason()).isEqualTo("other");
        assertThat(r.attempts()).containsExactly(Samples.noCode(1));
    }

    // ---- opening

    @Test
    void createsTheSchemaInAnEmptyFile() throws Exception {
        Path empty = dir.resolve("empty.db");
        Files.createFile(empty);
        try (SqliteRunLog fresh = SqliteRunLog.open(empty)) {
            fresh.started(Run.started("x", Samples.bareTask(), Samples.T0));
            assertThat(fresh.find("x")).isPresent();
        }
        assertThat(pragma(empty, "user_version")).isEqualTo(String.valueOf(Migrations.LATEST));
        assertThat(pragma(empty, "journal_mode")).isEqualTo("wal");
        assertThat(tables(empty)).contains("runs", "attempts");
    }

    @Test
    void opensAFileWhoseSchemaIsCurrentWithoutChangingIt() throws Exception {
        log.started(Run.started("x", Samples.bareTask(), Samples.T0));
        log.close();
        String before = schema(db);
        log = SqliteRunLog.open(db);
        assertThat(schema(db)).isEqualTo(before);
        assertThat(log.find("x")).isPresent();
    }

    @Test
    void refusesAFileFromANewerVersion() throws Exception {
        Path newer = dir.resolve("newer.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + newer); Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        assertThatThrownBy(() -> SqliteRunLog.open(newer)).isInstanceOf(RunLogUnavailableException.class)
                .hasMessage("run log " + newer + ": it was written by a newer codeagent (schema version 99; this one knows up to "
                        + Migrations.LATEST + ")");
    }

    @Test
    void refusesSomeOtherSqliteDatabase() throws Exception {
        Path other = dir.resolve("other.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + other); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE runs (x INTEGER)");
        }
        assertThatThrownBy(() -> SqliteRunLog.open(other)).isInstanceOf(RunLogUnavailableException.class)
                .hasMessageContaining(other.toString()).hasMessageContaining("database of something else");
        assertThat(tables(other)).containsExactly("runs");
    }

    @Test
    void failsClearlyOnADirectory() {
        assertUnusable(dir, "it is a directory, not a database file");
    }

    @Test
    void failsClearlyWhenTheDirectoryCannotBeMade() throws Exception {
        Path file = dir.resolve("plain-file");
        Files.writeString(file, "x");
        assertUnusable(file.resolve("runs.db"), "cannot create its directory: " + file + " is not a directory");
    }

    @Test
    void failsClearlyOnAFileThatIsNotADatabase() throws Exception {
        Path garbage = dir.resolve("garbage.db");
        byte[] bytes = "this is not a database, just text\n".repeat(200).getBytes(StandardCharsets.UTF_8);
        Files.write(garbage, bytes);
        assertUnusable(garbage, "not an SQLite database (the file is damaged or is something else)");
        assertThat(Files.readAllBytes(garbage)).isEqualTo(bytes);
    }

    @Test
    void failsClearlyOnADatabaseWithACorruptHeader() throws Exception {
        log.started(Run.started("x", Samples.bareTask(), Samples.T0));
        log.close();
        Path copy = dir.resolve("corrupt.db");
        byte[] bytes = Files.readAllBytes(db);
        for (int i = 16; i < 100; i++) {
            bytes[i] = (byte) 0xff; // page size, format numbers, counters: a damaged header
        }
        Files.write(copy, bytes);
        assertThatThrownBy(() -> SqliteRunLog.open(copy)).isInstanceOf(RunLogUnavailableException.class)
                .hasMessageStartingWith("run log " + copy + ": ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        log = SqliteRunLog.open(db);
    }

    // ---- paths

    @Test
    void expandsTheHomeDirectory() {
        Path home = Path.of(System.getProperty("user.home")).toAbsolutePath().normalize();
        assertThat(SqliteRunLog.resolvePath("~/.codeagent/runs.db")).isEqualTo(home.resolve(".codeagent/runs.db"));
        assertThat(SqliteRunLog.resolvePath("~")).isEqualTo(home);
        assertThat(SqliteRunLog.resolvePath("a/~b.db")).isEqualTo(Path.of("a/~b.db").toAbsolutePath());
        assertThat(SqliteRunLog.resolvePath("/x/../y/runs.db")).isEqualTo(Path.of("/y/runs.db"));
        assertThatThrownBy(() -> SqliteRunLog.resolvePath(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("store.sqlite.path must not be empty");
    }

    // ---- helpers

    private static void assertUnusable(Path path, String reason) {
        assertThatThrownBy(() -> SqliteRunLog.open(path)).isInstanceOf(RunLogUnavailableException.class)
                .hasMessage("run log " + path.toAbsolutePath() + ": " + reason)
                .satisfies(e -> assertThat(((RunLogUnavailableException) e).file()).isEqualTo(path.toAbsolutePath()));
    }

    /** The owner recorded for run {@code id}, or null when none is. */
    static ProcessOwner owner(Path file, String id) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                PreparedStatement s = c.prepareStatement("SELECT owner_boot_id, owner_pid, owner_start FROM runs WHERE id = ?")) {
            s.setString(1, id);
            try (ResultSet r = s.executeQuery()) {
                assertThat(r.next()).as("run %s", id).isTrue();
                long pid = r.getLong(2);
                return r.wasNull() ? null : new ProcessOwner(r.getString(1), pid, r.getString(3));
            }
        }
    }

    /** Rewrites the owner of run {@code id}, as if another process (or none, for null) had started it. */
    private static void setOwner(Path file, String id, ProcessOwner owner) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                PreparedStatement s = c.prepareStatement("UPDATE runs SET owner_boot_id = ?, owner_pid = ?, owner_start = ? WHERE id = ?")) {
            s.setString(1, owner == null ? null : owner.bootId());
            if (owner == null) {
                s.setNull(2, Types.INTEGER);
            } else {
                s.setLong(2, owner.pid());
            }
            s.setString(3, owner == null ? null : owner.start());
            s.setString(4, id);
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
    }

    /** The owner a process that has since ended would have recorded. */
    private static ProcessOwner deadProcess() throws Exception {
        Process p = new ProcessBuilder("sleep", "60").start();
        ProcessOwner owner;
        try {
            owner = ProcessOwner.of(p.toHandle());
        } finally {
            p.destroyForcibly();
        }
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(owner.start()).isNotNull();
        return owner;
    }

    static String pragma(Path file, String name) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("PRAGMA " + name)) {
            return r.next() ? r.getString(1) : null;
        }
    }

    private static List<String> tables(Path file) throws SQLException {
        return column(file, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name");
    }

    private static String schema(Path file) throws SQLException {
        return String.join("\n", column(file, "SELECT sql FROM sqlite_schema ORDER BY name")) + "\nversion "
                + pragma(file, "user_version");
    }

    private static List<String> column(Path file, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
