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

    /** {@code --queue} is {@code sandbox.kind: queue}: set either way, a solve goes whole to the run queue. */
    @Test
    void sandboxKindQueueHandsASolveWholeToTheRunQueue() {
        CliRunner.Result r = new CliRunner(dir).env("CODEAGENT_STORE", "sqlite")
                .env("CODEAGENT_STORE_SQLITE_PATH", dir.resolve("runs.db").toString())
                .run("--set", "sandbox.kind=queue", "solve", "print 1");
        assertThat(r.status()).as(r.toString()).isEqualTo(ExitStatus.USAGE);
        assertThat(r.err()).isEqualTo("codeagent: sandbox.kind: queue needs a store that keeps a queue for workers"
                + " (store.kind: postgres), not sqlite\n");
    }

    @Test
    void execQueueRefusesAStoreThatKeepsNoQueueInOneLine() {
        CliRunner.Result r = new CliRunner(dir).env("CODEAGENT_STORE", "sqlite")
                .env("CODEAGENT_STORE_SQLITE_PATH", dir.resolve("runs.db").toString())
                .runWithStdin("print(1)\n", "exec", "--queue", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(ExitStatus.USAGE);
        assertThat(r.err()).isEqualTo("codeagent: --queue: store.kind sqlite keeps no queue for other processes;"
                + " running on workers needs store.kind: postgres\n");
    }

    @Test
    void execWithSandboxKindQueueIsRefusedInTheWordsTyped() {
        CliRunner.Result r = new CliRunner(dir).env("CODEAGENT_STORE", "sqlite")
                .env("CODEAGENT_STORE_SQLITE_PATH", dir.resolve("runs.db").toString())
                .runWithStdin("print(1)\n", "--sandbox", "queue", "exec", "-");
        assertThat(r.status()).as(r.toString()).isEqualTo(ExitStatus.USAGE);
        assertThat(r.err()).isEqualTo("codeagent: sandbox.kind: queue: store.kind sqlite keeps no queue for other processes;"
                + " running on workers needs store.kind: postgres\n");
    }
}
