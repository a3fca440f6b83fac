package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import dev.codeagent.store.postgres.PostgresStore;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A front door over a shared store serves runs it did not accept: a run queued by another process and worked by
 * a worker streams live to this front door's SSE as the worker records it, and its cancel reaches the worker.
 * The "other process" and the "worker" are the store's own API, as a second front door and a worker use it.
 */
@Tag("slow")
class SharedStoreRunsIT {

    /** Runs another front door took from the same key: they belong to it there as here. */
    private static final String OWNER = "key:admin";

    @Test
    void streamsARunWorkedElsewhereAsItsWorkerRecordsIt() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        try (TestServer server = server(db); PostgresStore otherDoor = PostgresStore.open(db);
             PostgresStore worker = PostgresStore.open(db)) {
            otherDoor.workQueue().enqueue(Run.started("elsewhere", Task.of("say hi"), Instant.now(), OWNER));
            assertThat(worker.workQueue().claim()).map(c -> c.run().id()).contains("elsewhere");
            try (SseReader sse = new SseReader(server, "elsewhere", TestServer.ADMIN_KEY, null)) {
                assertThat(sse.response.statusCode()).isEqualTo(200);
                assertThat(sse.next().name()).isEqualTo("run-started");
                worker.runLog().attemptFinished("elsewhere", new Attempt(1, "```python\nprint('hi')\n```", "print('hi')\n", null,
                        Verdict.accepted(), "", Duration.ofMillis(5), Duration.ofMillis(7)));
                assertThat(sse.next().name()).isEqualTo("attempt-started");
                assertThat(sse.next().name()).isEqualTo("code-generated");
                SseReader.Event verdict = sse.next();
                assertThat(verdict.name()).isEqualTo("verdict");
                assertThat(verdict.id()).isEqualTo(14);
                worker.runLog().ended("elsewhere", RunStatus.SOLVED, Instant.now(), null);
                SseReader.Event end = sse.next();
                assertThat(end.name()).isEqualTo("run-finished");
                assertThat(end.data()).contains("\"status\":\"SOLVED\"");
            }
            // seen to the end: an EventSource's reconnect gets 204
            try (SseReader again = new SseReader(server, "elsewhere", TestServer.ADMIN_KEY, 1000L)) {
                assertThat(again.response.statusCode()).isEqualTo(204);
            }
        }
    }

    @Test
    void cancelReachesTheWorkerOfARunThisFrontDoorDidNotAccept() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        try (TestServer server = server(db); PostgresStore otherDoor = PostgresStore.open(db);
             PostgresStore worker = PostgresStore.open(db)) {
            BlockingQueue<String> told = new LinkedBlockingQueue<>();
            try (AutoCloseable watch = worker.workQueue().onCancel((id, why) -> told.add(id + ": " + why))) {
                otherDoor.workQueue().enqueue(Run.started("held", Task.of("y"), Instant.now(), OWNER));
                assertThat(worker.workQueue().claim()).map(c -> c.run().id()).contains("held");
                HttpResponse<String> r = server.delete("/v1/runs/held", TestServer.ADMIN_KEY);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                assertThat(told.poll(5, TimeUnit.SECONDS)).isEqualTo("held: cancelled");
            }
            otherDoor.workQueue().enqueue(Run.started("waiting", Task.of("z"), Instant.now(), OWNER));
            HttpResponse<String> r = server.delete("/v1/runs/waiting", TestServer.ADMIN_KEY);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            assertThat(TestServer.json(r).get("status").asText()).as("a waiting run ends at once").isEqualTo("CANCELLED");
        }
    }

    @Test
    void aFrontDoorOnlyQueuesTheRunsItAcceptsForTheWorkers() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        try (TestServer door = TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()).set("sandbox.kind", "queue").start();
             PostgresStore worker = PostgresStore.open(db)) {
            HttpResponse<String> accepted = door.post("/v1/runs", TestServer.ADMIN_KEY, "{\"prompt\":\"say hi\",\"maxAttempts\":2}");
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
            String id = TestServer.json(accepted).get("id").asText();
            assertThat(worker.workQueue().depth()).as("queued for the workers, not solved here").isEqualTo(1);
            try (SseReader sse = new SseReader(door, id, TestServer.ADMIN_KEY, null)) {
                assertThat(sse.next().name()).isEqualTo("run-started");
                assertThat(worker.workQueue().claim()).map(c -> c.run().id()).contains(id);
                worker.runLog().attemptFinished(id, new Attempt(1, "```python\nprint('hi')\n```", "print('hi')\n", null,
                        Verdict.accepted(), "", Duration.ofMillis(5), Duration.ofMillis(7)));
                worker.runLog().ended(id, RunStatus.SOLVED, Instant.now(), null);
                assertThat(sse.rest()).extracting(SseReader.Event::name)
                        .containsExactly("attempt-started", "code-generated", "verdict", "run-finished");
            }
            assertThat(TestServer.json(door.get("/v1/runs/" + id, TestServer.ADMIN_KEY)).get("status").asText()).isEqualTo("SOLVED");
        }
    }

    @Test
    void aFrontDoorOnlyNeedsAStoreThatKeepsAQueue() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TestServer.builder().set("sandbox.kind", "queue").start())
                .hasStackTraceContaining("sandbox.kind: queue runs programs on workers, which needs a store they share; store.kind 'memory' keeps no queue for other processes; set store.kind: postgres");
    }

    private static TestServer server(PostgresStoreConfig db) {
        return TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()).start();
    }
}
