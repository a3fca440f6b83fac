package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code codeagent worker} and {@code solve --queue} need a store that keeps a queue for other processes. */
class WorkerCommandTest {

    @TempDir
    Path dir;

    @Test
    void refusesAStoreThatKeepsNoQueueInOneLine() {
        CliRunner.Result r = new CliRunner(dir).env("CODEAGENT_STORE", "sqlite")
                .env("CODEAGENT_STORE_SQLITE_PATH", dir.resolve("runs.db").toString())
                .run("--sandbox", "process", "--set", "sandbox.isolation=best-effort", "worker", "--exit-when-idle");
        assertThat(r.status()).as(r.toString()).isEqualTo(ExitStatus.USAGE);
        assertThat(r.err()).isEqualTo("codeagent: store.kind sqlite keeps no queue for other processes;"
                + " 'codeagent worker' needs store.kind: postgres\n");
    }

    @Test
    void solveQueueRefusesAStoreThatKeepsNoQueueInOneLine() {
        CliRunner.Result r = new CliRunner(dir).env("CODEAGENT_STORE", "sqlite")
                .env("CODEAGENT_STORE_SQLITE_PATH", dir.resolve("runs.db").toString())
                .run("--sandbox", "process", "--set", "sandbox.isolation=best-effort", "solve", "--queue", "print 1");
        assertThat(r.status()).as(r.toString()).isEqualTo(ExitStatus.USAGE);
        assertThat(r.err()).isEqualTo("codeagent: --queue needs a store that keeps a queue for workers (store.kind: postgres), not sqlite\n");
    }
}
