package dev.codeagent.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.codeagent.store.postgres.PostgresExecutionQueueIT.printed;
import static dev.codeagent.store.postgres.PostgresExecutionQueueIT.request;

import dev.codeagent.domain.execution.Execution;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The execution queue under a concurrent stress of a few thousand tiny items, against a real PostgreSQL. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PostgresExecutionClaimersIT {

    /** Many claimers on one queue: every execution is claimed by exactly one of them, and every claimer gets work. */
    @Test
    void concurrentWorkersClaimEachExecutionExactlyOnce() throws Exception {
        PostgresStoreConfig config = TestCluster.get().freshDatabase();
        int n = 2000;
        try (PostgresStore submitter = PostgresStore.open(config)) {
            for (int i = 0; i < n; i++) {
                submitter.executionQueue().submit("e" + i, request("print(" + i + ")"));
            }
            List<PostgresStore> workers = List.of(PostgresStore.open(config), PostgresStore.open(config),
                    PostgresStore.open(config));
            Map<String, Integer> claimedBy = new java.util.concurrent.ConcurrentHashMap<>();
            Map<String, Integer> twice = new java.util.concurrent.ConcurrentHashMap<>();
            int[] counts = new int[workers.size()];
            List<Thread> threads = new java.util.ArrayList<>();
            for (int w = 0; w < workers.size(); w++) {
                int me = w;
                for (int t = 0; t < 2; t++) {
                    threads.add(new Thread(() -> {
                        PostgresStore q = workers.get(me);
                        for (var c = q.executionQueue().claimExecution(); c.isPresent(); c = q.executionQueue().claimExecution()) {
                            if (claimedBy.putIfAbsent(c.get().id(), me) != null) {
                                twice.put(c.get().id(), me);
                            }
                            synchronized (counts) {
                                counts[me]++;
                            }
                            q.executionQueue().complete(c.get().id(), printed(c.get().id()));
                        }
                    }));
                }
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
            workers.forEach(PostgresStore::close);
            assertThat(twice).isEmpty();
            assertThat(claimedBy).hasSize(n);
            assertThat(counts).as("every worker got work").doesNotContain(0);
            Map<String, Execution> results = new HashMap<>(submitter.executionQueue().takeResults());
            assertThat(results).hasSize(n);
            assertThat(results.get("e7").stdout().text()).isEqualTo("e7");
        }
    }
}
