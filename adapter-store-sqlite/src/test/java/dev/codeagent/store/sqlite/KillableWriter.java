package dev.codeagent.store.sqlite;

import dev.codeagent.kit.store.jdbc.Samples;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The process {@link SqliteRunLogKillIT} kills: starts run {@code args[1]} in the log at
 * {@code args[0]} and appends attempts as fast as it can, printing {@code committed N} on stdout after
 * attempt N's call has returned. Stops by itself after a while in case nobody kills it.
 */
public final class KillableWriter {

    static final int MAX_ATTEMPTS = 2000;
    static final Duration MAX_TIME = Duration.ofSeconds(30);

    private KillableWriter() {
    }

    public static void main(String[] args) {
        long deadline = System.nanoTime() + MAX_TIME.toNanos();
        SqliteRunLog log = SqliteRunLog.open(Path.of(args[0]));
        log.started(Run.started(args[1], Samples.fullTask(), Samples.T0));
        System.out.println("started");
        System.out.flush();
        for (int n = 1; n <= MAX_ATTEMPTS && System.nanoTime() < deadline; n++) {
            log.attemptFinished(args[1], attempt(n));
            System.out.println("committed " + n);
            System.out.flush();
            if (System.out.checkError()) {
                break; // the test is gone
            }
        }
        log.close();
    }

    /**
     * Attempt {@code n}: about 1 MiB (a full stdout at the default limit), so that each commit writes
     * hundreds of pages and takes long enough for a kill to land in the middle of it.
     */
    static Attempt attempt(int n) {
        Attempt base = Samples.runtimeError(n);
        Execution e = base.execution();
        String big = ("attempt " + n + " line of output that repeats to fill pages\n").repeat(20_000);
        Execution bigger = new Execution(e.outcome(), e.exitCode(), e.signal(), new CapturedOutput(big, true), e.stderr(),
                e.wallTime().plusNanos(n), e.cpuTime(), e.peakMemoryBytes(), e.detail(), e.isolation());
        return new Attempt(n, base.reply(), base.code() + "# " + n + "\n", bigger, base.verdict(), base.feedback(),
                base.generationTime(), base.executionTime());
    }
}
