package dev.codeagent.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a JVM with SIGKILL while it appends attempts, then checks what the file holds; and that
 * another process marks its run interrupted only once it is dead.
 */
@Tag("slow")
class SqliteRunLogKillIT {

    private static final String RUN = "killed-run";

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void keepsEveryCommittedAttemptAndNothingHalfWrittenWhenKilled() throws Exception {
        // the test JVM plays the second front door (the CLI while the HTTP server runs) on the same file
        Path db = dir.resolve("runs.db");
        Path stderr = dir.resolve("writer.err");
        Process writer = new ProcessBuilder(javaBin(), "-Xmx256m", "-cp", testClasspath(),
                KillableWriter.class.getName(), db.toString(), RUN)
                .redirectError(stderr.toFile())
                .start();
        int reported = 0;
        long delayMicros;
        try {
            BlockingQueue<String> lines = drain(writer);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long previous = 0;
            long interval = 0;
            boolean checkedWhileAlive = false;
            while (reported < 6) {
                String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(line).as("writer output before the deadline; its stderr: %s", read(stderr)).isNotNull();
                if (line.startsWith("committed ")) {
                    reported = Integer.parseInt(line.substring("committed ".length()));
                    long now = System.nanoTime();
                    interval = now - previous;
                    previous = now;
                }
                if (reported >= 2 && !checkedWhileAlive) {
                    checkedWhileAlive = true;
                    try (SqliteRunLog other = SqliteRunLog.open(db)) {
                        assertThat(other.markInterrupted("must not be marked")).as("runs marked while their writer lives").isZero();
                        assertThat(other.find(RUN).orElseThrow().status()).isEqualTo(RunStatus.RUNNING);
                    }
                    assertThat(SqliteRunLogTest.owner(db, RUN).pid()).isEqualTo(writer.pid());
                    previous = System.nanoTime(); // the check's own time is not the writer's pace
                }
            }
            // Kill at a random point of the next attempt's call: sometimes before it writes, sometimes
            // while its pages go to the WAL, sometimes after its commit but before it is reported.
            delayMicros = ThreadLocalRandom.current().nextLong(Math.max(1, interval / 1000));
            TimeUnit.MICROSECONDS.sleep(delayMicros);
            writer.destroyForcibly();
            assertThat(writer.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(writer.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
            // lines printed before the kill landed
            for (String line = lines.poll(); line != null; line = lines.poll()) {
                if (line.startsWith("committed ")) {
                    reported = Integer.parseInt(line.substring("committed ".length()));
                }
            }
        } finally {
            writer.destroyForcibly();
        }

        assertThat(SqliteRunLogTest.pragma(db, "integrity_check")).isEqualTo("ok");
        try (SqliteRunLog log = SqliteRunLog.open(db)) {
            Run run = log.find(RUN).orElseThrow();
            assertThat(run.status()).isEqualTo(RunStatus.RUNNING);
            List<Attempt> attempts = run.attempts();
            // every reported attempt is there, whole; at most one more (committed, not yet reported)
            assertThat(attempts.size()).as("attempts stored after a kill %dus into the next call", delayMicros)
                    .isBetween(reported, reported + 1);
            for (int n = 1; n <= attempts.size(); n++) {
                assertThat(attempts.get(n - 1)).isEqualTo(KillableWriter.attempt(n));
            }

            assertThat(log.markInterrupted("the process died mid-run")).isEqualTo(1);
            Run marked = log.find(RUN).orElseThrow();
            assertThat(marked.status()).isEqualTo(RunStatus.ERROR);
            assertThat(marked.reason()).isEqualTo("the process died mid-run");
            assertThat(marked.endedAt()).isNotNull();
            assertThat(marked.attempts()).isEqualTo(attempts);
        }
        assertThat(SqliteRunLogTest.pragma(db, "integrity_check")).isEqualTo("ok");
    }

    private static BlockingQueue<String> drain(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("read failed: " + e);
            }
        }, "writer-stdout");
        t.setDaemon(true);
        t.start();
        return lines;
    }

    private static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The test classpath; under Surefire/Failsafe java.class.path may be a manifest-only jar. */
    private static String testClasspath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }

}
