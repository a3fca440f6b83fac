package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.store.sqlite.SqliteRunLog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent runs} over a SQLite file that {@code codeagent solve} wrote. */
class RunsCommandTest {

    private static final Path EXAMPLES = Path.of("..", "examples");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private CliRunner cli;
    private Path db;

    @BeforeEach
    void setUp() {
        db = dir.resolve("runs.db");
        cli = new CliRunner(dir).env("CODEAGENT_STORE", "sqlite").env("CODEAGENT_STORE_SQLITE_PATH", db.toString());
    }

    @Test
    void listsAndShowsTheRunsThatSolveRecorded() throws IOException {
        CliRunner.Result solved = cli.run("solve", "--json", "--task-file", EXAMPLES.resolve("middle-task.json").toString(),
                "--replay", EXAMPLES.resolve("middle.replay.jsonl").toString());
        assertThat(solved.status()).as(solved.toString()).isZero();
        String id = JSON.readTree(solved.out()).get("id").asText();

        CliRunner.Result list = cli.run("runs");
        assertThat(list.status()).as(list.toString()).isZero();
        assertThat(list.out().lines()).hasSize(2);
        assertThat(list.out().lines().findFirst().orElseThrow()).matches("ID +STATUS +ATTEMPTS +STARTED +PROMPT");
        assertThat(list.out()).contains(id, "SOLVED", "2/3", "Write a Python function middle(xs) that returns the median o…");

        JsonNode array = JSON.readTree(cli.run("runs", "--json").out());
        assertThat(array).hasSize(1);
        assertThat(array.get(0).get("id").asText()).isEqualTo(id);
        assertThat(array.get(0).get("attemptCount").asInt()).isEqualTo(2);

        CliRunner.Result show = cli.run("runs", "show", id);
        assertThat(show.status()).as(show.toString()).isZero();
        assertThat(show.out()).contains("status    SOLVED", "attempts  2/3",
                "── attempt 1: RUNTIME_ERROR IndexError: list index out of range (line 6: return (ordered[half] + ordered[half + 1]) / 2)",
                "── attempt 2: ACCEPTED", "ordered[half - 1]");
        assertThat(show.out()).as("where each attempt ran").containsPattern("── attempt 1: .*\\(generation \\S+, execution \\S+, \\w+ sandbox\\)");

        JsonNode detail = JSON.readTree(cli.run("runs", "show", "--json", id).out());
        assertThat(detail.get("status").asText()).isEqualTo("SOLVED");
        assertThat(detail.get("attempts").get(0).get("verdict").get("error").get("line").asInt()).isEqualTo(6);
        assertThat(detail.get("prompt").asText()).startsWith("Write a Python function middle");
    }

    @Test
    void listsAndShowsOnlyTheLocalUsersRunsUnlessAskedForAll() throws IOException {
        CliRunner.Result solved = cli.run("solve", "--json", "--task-file", EXAMPLES.resolve("middle-task.json").toString(),
                "--replay", EXAMPLES.resolve("middle.replay.jsonl").toString());
        assertThat(solved.status()).as(solved.toString()).isZero();
        String mine = JSON.readTree(solved.out()).get("id").asText();
        String me = "local:" + System.getProperty("user.name");
        // an HTTP key's run and one from before runs had owners, in the same store
        try (SqliteRunLog log = SqliteRunLog.open(db)) {
            log.started(Run.started("keysrun", Task.of("an API key's secret prompt"), Instant.now(), "key:alice"));
            log.started(Run.started("oldrun", Task.of("from before owners"), Instant.now()));
        }

        JsonNode own = JSON.readTree(cli.run("runs", "--json").out());
        assertThat(own).hasSize(1);
        assertThat(own.get(0).get("id").asText()).isEqualTo(mine);
        assertThat(own.get(0).get("owner").asText()).isEqualTo(me);
        assertThat(cli.run("runs").out()).doesNotContain("keysrun", "oldrun", "secret prompt");
        JsonNode all = JSON.readTree(cli.run("runs", "--all", "--json").out());
        assertThat(all).extracting(r -> r.get("id").asText()).containsExactlyInAnyOrder(mine, "keysrun", "oldrun");

        CliRunner.Result theirs = cli.run("runs", "show", "keysrun");
        assertThat(theirs.status()).isEqualTo(1);
        assertThat(theirs.err()).isEqualTo("codeagent: no run with id 'keysrun' (see 'codeagent runs')\n");
        CliRunner.Result shown = cli.run("runs", "show", "--all", "keysrun");
        assertThat(shown.status()).as(shown.toString()).isZero();
        assertThat(shown.out()).contains("owner     key:alice", "an API key's secret prompt");
        assertThat(cli.run("runs", "show", mine).out()).contains("owner     " + me);
    }

    @Test
    void pointsToAllWhenTheStoreHoldsOnlyOthersRuns() {
        try (SqliteRunLog log = SqliteRunLog.open(db)) {
            log.started(Run.started("keysrun", Task.of("x"), Instant.now(), "key:alice"));
        }
        CliRunner.Result r = cli.run("runs");
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("no runs of yours", "codeagent runs --all");
    }

    @Test
    void anUnknownIdIsOneLineAndStatusOne() {
        CliRunner.Result r = cli.run("runs", "show", "no-such-run");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("codeagent: no run with id 'no-such-run' (see 'codeagent runs')\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void saysSoWhenThereAreNoRuns() {
        CliRunner.Result r = cli.run("runs", "--limit", "5");
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("codeagent: no runs yet (codeagent solve … starts one)\n");
        assertThat(cli.run("runs", "--limit", "0").status()).isEqualTo(2);
    }

    @Test
    void listsOnlyTheStatusesAskedForAndNamesAWrongOne() {
        try (SqliteRunLog log = SqliteRunLog.open(db)) {
            String me = "local:" + System.getProperty("user.name");
            log.started(Run.started("stillrunning", Task.of("running one"), Instant.now(), me));
            log.started(Run.started("cancelledone", Task.of("cancelled one"), Instant.now(), me));
            log.ended("cancelledone", dev.codeagent.domain.solving.RunStatus.CANCELLED, Instant.now(), "by its owner");
        }
        CliRunner.Result running = cli.run("runs", "--status", "running");
        assertThat(running.status()).as(running.toString()).isZero();
        assertThat(running.out()).contains("stillrunning").doesNotContain("cancelledone");
        assertThat(cli.run("runs", "--status", "CANCELLED,solved").out()).contains("cancelledone").doesNotContain("stillrunning");

        CliRunner.Result none = cli.run("runs", "--status", "solved");
        assertThat(none.status()).isZero();
        assertThat(none.out()).isEmpty();
        assertThat(none.err()).isEqualTo("codeagent: no runs of yours with status SOLVED\n");

        CliRunner.Result wrong = cli.run("runs", "--status", "done");
        assertThat(wrong.status()).isEqualTo(2);
        assertThat(wrong.err()).contains("--status: no status 'done'; use RUNNING, SOLVED, FAILED, ERROR, CANCELLED")
                .doesNotContain("Exception", "\tat ");
    }
}
