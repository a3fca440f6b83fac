package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on {@code codeagent solve --queue} (the launcher's JVM gets SIGINT, as from a terminal) cancels the queued
 * run in the shared store, so no worker picks up work its user gave up on, and the command ends with 130 and one line.
 */
@Tag("slow")
class QueuedSolveInterruptIT {

    @TempDir
    Path dir;

    @Test
    void ctrlCOnAQueuedSolveCancelsTheRunInTheStore() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        Path config = TestCluster.writePrivate(dir.resolve("config.yaml"), "store:\n  kind: postgres\n  postgres:\n"
                + "    jdbcUrl: " + db.jdbcUrl() + "\n    user: " + db.user() + "\n    password: '" + db.password() + "'\n");
        Process solve = LaunchedWorker.launch(dir, config, "solve", "solve", "--queue", "--generator", "replay", "--replay",
                LaunchedWorker.ROOT.resolve("examples/middle.replay.jsonl").toString(), "write middle");
        Path err = dir.resolve("solve.err");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(err).contains("waiting for a worker") && System.nanoTime() < deadline && solve.isAlive()) {
            Thread.sleep(100);
        }
        assertThat(Files.readString(err)).as("the run was queued").contains("waiting for a worker");
        String runId = Files.readString(err).replaceAll("(?s).*queued run ([a-z0-9]{16}).*", "$1");

        // the launcher exec()s the JVM: this pid is the JVM, which gets SIGINT as from a terminal's Ctrl-C
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(solve.pid())).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0).isTrue();
        assertThat(solve.waitFor(30, TimeUnit.SECONDS)).as("the command ended").isTrue();

        assertThat(solve.exitValue()).isEqualTo(130);
        assertThat(Files.readString(err)).endsWith("codeagent: interrupted; asked the workers to cancel run " + runId + "\n")
                .doesNotContain("WARN");
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT status, reason FROM runs WHERE id = '" + runId + "'")) {
            assertThat(r.next()).isTrue();
            assertThat(r.getString("status")).isEqualTo("CANCELLED");
            assertThat(r.getString("reason")).isEqualTo("cancelled by the user who queued it");
        }
    }
}
