package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A front door over a shared store shows how much work waits for the workers, read from the store at each scrape. */
@Tag("slow")
class QueueMetricsIT {

    private static final Pattern DEPTH = Pattern.compile("(?m)^codeagent_queue_depth(?:\\{[^}]*\\})? (\\S+)$");

    @Test
    void metricsShowTheSharedQueuesDepth() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        try (TestServer server = TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()).start();
             PostgresStore other = PostgresStore.open(db)) {
            assertThat(depth(server)).isEqualTo(0.0);
            // queued by another process: the front door did not accept it, the store says it waits
            other.workQueue().enqueue(Run.started("queued1", Task.of("x"), Instant.now()));
            other.workQueue().enqueue(Run.started("queued2", Task.of("y"), Instant.now()));
            assertThat(depth(server)).isEqualTo(2.0);
            // single executions too (an evaluation's samples), whoever submitted them
            assertThat(gauge(server, EXECUTIONS)).isEqualTo(0.0);
            other.executionQueue().submit("sample-1", dev.codeagent.domain.execution.ExecutionRequest.of(
                    dev.codeagent.domain.execution.Language.PYTHON, "print(1)"));
            assertThat(gauge(server, EXECUTIONS)).isEqualTo(1.0);
        }
    }

    private static final Pattern EXECUTIONS = Pattern.compile("(?m)^codeagent_queue_executions_waiting(?:\\{[^}]*\\})? (\\S+)$");

    private static double depth(TestServer server) {
        return gauge(server, DEPTH);
    }

    private static double gauge(TestServer server, Pattern gauge) {
        String scrape = server.get("/metrics", TestServer.OPS_KEY).body();
        Matcher m = gauge.matcher(scrape);
        assertThat(m.find()).as(gauge + " in\n" + scrape).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
