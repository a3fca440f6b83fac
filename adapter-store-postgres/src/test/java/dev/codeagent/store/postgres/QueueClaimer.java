package dev.codeagent.store.postgres;

import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.RunStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A claiming process for the multi-process tests, started with the test classpath. Prints one
 * protocol line per event on stdout. Modes: {@code drain} claims and ends runs until none is left
 * (then prints {@code done COUNT MILLIS}); {@code hold} claims one, records attempt 1, says so, and
 * waits to be killed; {@code fill N PROMPT} queues N runs of that prompt (for hand measurements).
 */
public final class QueueClaimer {

    /** The environment variable that carries the cluster's password (see {@link TestCluster}). */
    static final String PASSWORD_VARIABLE = "CODEAGENT_TEST_PG_PASSWORD";

    private QueueClaimer() {
    }

    public static void main(String[] args) throws Exception {
        PostgresStoreConfig config = new PostgresStoreConfig(args[0], args[1], System.getenv(PASSWORD_VARIABLE), 4, Duration.ofMillis(200),
                Duration.ofMillis(1000), PostgresStoreConfig.LeaseLoss.TAKEOVER);
        try (PostgresStore log = PostgresStore.open(config)) {
            System.out.println("ready");
            if (args[2].equals("fill")) {
                int n = Integer.parseInt(args[3]);
                for (int i = 0; i < n; i++) {
                    log.workQueue().enqueue(Run.started(String.format("fill-%d-%06d", ProcessHandle.current().pid(), i), Task.of(args[4]), Instant.now()));
                }
                System.out.println("queued " + n);
            } else if (args[2].equals("drain")) {
                long t0 = System.nanoTime();
                int count = 0;
                for (Optional<WorkQueue.Claim> c = log.workQueue().claim(); c.isPresent(); c = log.workQueue().claim()) {
                    String id = c.get().run().id();
                    System.out.println("claimed " + id);
                    log.runLog().ended(id, RunStatus.SOLVED, Instant.now(), null);
                    log.workQueue().finished(id);
                    count++;
                }
                System.out.println("done " + count + " " + (System.nanoTime() - t0) / 1_000_000);
            } else {
                WorkQueue.Claim c = log.workQueue().claim().orElseThrow();
                System.out.println("claimed " + c.run().id());
                log.runLog().attemptFinished(c.run().id(), PostgresRunLogIT.printed(1, "1\n"));
                System.out.println("wrote");
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }
}
