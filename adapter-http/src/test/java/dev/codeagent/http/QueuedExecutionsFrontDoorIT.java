package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.ConfigLoader;
import dev.codeagent.application.work.ProcessQueuedExecutions;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A front door whose executions run on the shared store's workers ({@code sandbox.kind: queue}): {@code POST
 * /v1/executions} and Piston's {@code /api/v2/execute} answer with what a worker's real process sandbox ran, and
 * readiness says whether a worker answers at all.
 */
@Tag("slow")
class QueuedExecutionsFrontDoorIT {

    @Test
    void executionsRunOnAWorkerAndReadinessFollowsTheWorkers() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        try (TestServer door = TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password())
                .set("sandbox.kind", "queue").start()) {
            HttpResponse<String> early = door.get("/health", TestServer.ADMIN_KEY);
            assertThat(early.statusCode()).as("no worker yet: " + early.body()).isEqualTo(503);

            Worker worker = new Worker(db);
            try {
                HttpResponse<String> r = door.post("/v1/executions", TestServer.ADMIN_KEY,
                        "{\"language\":\"python\",\"code\":\"import sys\\nprint(6 * 7)\\nsys.exit(3)\"}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                JsonNode e = TestServer.json(r);
                assertThat(e.get("stdout").asText()).isEqualTo("42\n");
                assertThat(e.get("exitCode").asInt()).isEqualTo(3);
                assertThat(e.get("sandbox").asText()).as("the worker's tier").isEqualTo("process");

                JsonNode piston = TestServer.json(door.post("/api/v2/execute", TestServer.ADMIN_KEY,
                        "{\"language\":\"python\",\"version\":\"*\",\"files\":[{\"content\":\"print(input())\"}],\"stdin\":\"hi\"}"));
                assertThat(piston.get("run").get("stdout").asText()).isEqualTo("hi\n");
                assertThat(worker.executions.stats().worked()).isGreaterThanOrEqualTo(2);
            } finally {
                worker.close();
            }
        }
    }

    @Test
    void executionsOnTheQueueNeedAStoreThatKeepsOne() {
        assertThatThrownBy(() -> TestServer.builder().set("sandbox.kind", "queue").start())
                .hasStackTraceContaining("sandbox.kind: queue runs programs on workers, which needs a store they share; store.kind 'memory' keeps no queue for other processes; set store.kind: postgres");
    }

    /** A worker's execution side in this JVM: its own store connection and a real process sandbox. */
    private static final class Worker implements AutoCloseable {
        final PostgresStore queue;
        final CodeAgent local;
        final ProcessQueuedExecutions executions;
        final Thread thread;

        Worker(PostgresStoreConfig db) {
            queue = PostgresStore.open(db);
            local = CodeAgent.builder(new ConfigLoader().parse("store: {kind: memory}\nsandbox: {kind: process}")).build();
            executions = new ProcessQueuedExecutions(queue.executionQueue(), local.executeCode(), 2, Duration.ofSeconds(1));
            thread = new Thread(() -> executions.run(() -> false, false), "test-worker");
            thread.start();
        }

        @Override
        public void close() throws Exception {
            thread.interrupt();
            thread.join(10_000);
            local.close();
            queue.close();
        }
    }
}
