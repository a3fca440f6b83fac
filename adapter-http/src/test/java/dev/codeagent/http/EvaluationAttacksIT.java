package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.submit.SubmitEvaluations;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An adversary's {@code /v1/evaluations}, over a real socket on the real process sandbox: one key must not be able to
 * take the whole evaluation queue from every other key, and forgetting a running evaluation leaves the store and the
 * queue consistent.
 */
@Tag("slow")
class EvaluationAttacksIT {

    private static TestServer server;
    /** The shared server's work root: its sandboxes' command lines name it, which tells its processes from others'. */
    private static final String SHARED_ROOT = freshWorkRoot();

    @BeforeAll
    static void start() {
        server = TestServer.builder().set("sandbox.process.workRoot", SHARED_ROOT).set("http.auth.keys", "admin:" + ApiKeys.sha256Hex(TestServer.ADMIN_KEY)
                + ",ann:" + ApiKeys.sha256Hex(EvaluationsIT.ANN_KEY) + ":evaluations,bob:"
                + ApiKeys.sha256Hex(EvaluationsIT.BOB_KEY) + ":evaluations").start();
    }

    @AfterAll
    static void stop() throws java.io.IOException {
        server.close();
        removeTree(SHARED_ROOT);
    }

    /**
     * A work root of its own, not yet made (the sandbox makes it 0711; a JUnit temp directory is 0700, which the
     * sandbox's uids could not search).
     */
    private static String freshWorkRoot() {
        return java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "codeagent-evalattacks-"
                + java.util.UUID.randomUUID()).toString();
    }

    private static void removeTree(String root) throws java.io.IOException {
        java.nio.file.Path dir = java.nio.file.Path.of(root);
        if (java.nio.file.Files.exists(dir)) {
            try (java.util.stream.Stream<java.nio.file.Path> all = java.nio.file.Files.walk(dir)) {
                for (java.nio.file.Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    java.nio.file.Files.deleteIfExists(p);
                }
            }
        }
    }

    /** One problem whose samples each sleep until the sandbox's time limit kills them: an evaluation that lasts. */
    private static ObjectNode slowEvaluation() {
        ObjectNode body = EvaluationsIT.tinyEvaluation();
        ArrayNode samples = body.putArray("samples");
        for (int i = 0; i < 4; i++) {
            samples.addObject().put("task_id", "Tiny/0").put("completion", "    import time\n    time.sleep(600)\n");
        }
        return body;
    }

    @Test
    void oneKeyCannotFillTheQueueForEveryoneElse() {
        List<String> annIds = new ArrayList<>();
        HttpResponse<String> refused = null;
        try {
            for (int i = 0; i < SubmitEvaluations.RUNNING_AT_ONCE + SubmitEvaluations.MAX_WAITING; i++) {
                HttpResponse<String> r = server.post("/v1/evaluations", EvaluationsIT.ANN_KEY, slowEvaluation().toString());
                if (r.statusCode() != 202) {
                    refused = r;
                    break;
                }
                annIds.add(TestServer.json(r).get("id").asText());
            }
            // another key still gets in while ann's wait
            HttpResponse<String> bob = server.post("/v1/evaluations", EvaluationsIT.BOB_KEY, EvaluationsIT.tinyEvaluation()
                    .toString());
            assertThat(bob.statusCode()).as("bob after ann sent " + annIds.size() + ": " + bob.body()).isEqualTo(202);
            assertThat(refused).as("ann was never refused").isNotNull();
            assertThat(annIds).hasSize(SubmitEvaluations.MAX_PENDING_PER_OWNER);
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(TestServer.json(refused).get("detail").asText()).contains("your key")
                    .contains(String.valueOf(SubmitEvaluations.MAX_PENDING_PER_OWNER));
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            String bobId = TestServer.json(bob).get("id").asText();

            // forgetting ann's running one and the waiting ones lets bob's run; every forgotten one stays forgotten
            for (String id : annIds) {
                assertThat(server.delete("/v1/evaluations/" + id, EvaluationsIT.ANN_KEY).statusCode()).isEqualTo(204);
            }
            annIds.clear();
            JsonNode bobDone = EvaluationsIT.awaitDone(server, EvaluationsIT.BOB_KEY, bobId);
            assertThat(bobDone.get("status").asText()).as(bobDone.toString()).isEqualTo("DONE");
            assertThat(TestServer.json(server.get("/v1/evaluations", EvaluationsIT.ANN_KEY)).get("evaluations")).isEmpty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } finally {
            annIds.forEach(id -> server.delete("/v1/evaluations/" + id, EvaluationsIT.ANN_KEY));
        }
    }

    /** Attack that failed, kept: a sample's own error, output or stack cannot make its evaluation's report huge. */
    @Test
    void hugeErrorsAndOutputsDoNotBloatTheReport() throws InterruptedException {
        ObjectNode body = EvaluationsIT.tinyEvaluation();
        ArrayNode samples = body.putArray("samples");
        String[] hostile = {
            "    raise ValueError('x' * 10**6)\n",
            "    print('y' * 10**7)\n    raise SystemExit(1)\n",
            "    import sys\n    sys.stderr.write('z' * 10**7)\n    return 0\n",
            "    def r(n):\n        return r(n + 1)\n    return r(0)\n",
            "    raise ValueError('\\n'.join('line %d' % i for i in range(100000)))\n",
        };
        for (String code : hostile) {
            samples.addObject().put("task_id", "Tiny/0").put("completion", code);
        }
        HttpResponse<String> posted = server.post("/v1/evaluations", EvaluationsIT.BOB_KEY, body.toString());
        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
        String id = TestServer.json(posted).get("id").asText();
        JsonNode done = EvaluationsIT.awaitDone(server, EvaluationsIT.BOB_KEY, id);
        assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("DONE");
        // 23 MB of messages, output and frames sent back: what the report keeps of each is a few kilobytes
        for (JsonNode sample : done.get("problems").get(0).get("samples")) {
            assertThat(sample.get("verdict").asText()).isIn("RUNTIME_ERROR", "OUTPUT_LIMIT_EXCEEDED");
            assertThat(sample.toString().length() - sample.get("code").asText().length()).as(sample.toString())
                    .isLessThan(4096);
        }
        assertThat(server.get("/v1/evaluations/" + id, EvaluationsIT.BOB_KEY).body().length()).isLessThan(32 * 1024);
        server.delete("/v1/evaluations/" + id, EvaluationsIT.BOB_KEY);
    }

    /**
     * The caps counted samples, but an IO sample runs once per test: 2,000 cases of a tiny body times 100 samples was
     * 200,000 programs, one evaluation holding the only running place (and the sandbox) for hours.
     */
    @Test
    void ioTestsCountTowardsTheCapOnProgramsSoOneEvaluationCannotRunForDays() {
        ObjectNode body = Views.MAPPER.createObjectNode().put("format", "io");
        ArrayNode tests = body.putArray("problems").addObject().put("task_id", "Echo/0").put("prompt", "print a")
                .putArray("tests");
        for (int i = 0; i < 2000; i++) {
            tests.addObject().put("input", "").put("output", "a");
        }
        ArrayNode samples = body.putArray("samples");
        for (int i = 0; i < SubmitEvaluations.MAX_SAMPLES_PER_PROBLEM; i++) {
            samples.addObject().put("task_id", "Echo/0").put("completion", "print('a')\n");
        }
        HttpResponse<String> r = server.post("/v1/evaluations", EvaluationsIT.BOB_KEY, body.toString());
        try {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            JsonNode problem = TestServer.json(r);
            assertThat(problem.get("errors").get(0).get("field").asText()).isEqualTo("problems");
            assertThat(problem.get("detail").asText()).contains("at most " + SubmitEvaluations.MAX_PROGRAMS + " programs")
                    .contains("200000");
        } finally {
            if (r.statusCode() == 202) {
                server.delete("/v1/evaluations/" + TestServer.json(r).get("id").asText(), EvaluationsIT.BOB_KEY);
            }
        }
    }

    /**
     * The live processes of the server whose work root is {@code root}: this JVM's children whose command line names it
     * (each sandbox's bubblewrap binds files from there) and theirs. Another server in this JVM (the shared one, with
     * its pre-started sandboxes and start-up probes) has processes of its own that come and go on their own schedule.
     */
    private static java.util.Set<Long> processesOf(String root) {
        java.util.Set<Long> pids = new java.util.HashSet<>();
        ProcessHandle.current().children().filter(p -> p.info().commandLine().orElse("").contains(root)).forEach(p -> {
            pids.add(p.pid());
            p.descendants().map(ProcessHandle::pid).forEach(pids::add);
        });
        pids.removeIf(pid -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        return pids;
    }

    /** The server's processes once they have stayed the same for half a second (at most 5 s). */
    private static java.util.Set<Long> settled(String root) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        java.util.Set<Long> last = processesOf(root);
        while (System.nanoTime() < end) {
            Thread.sleep(500);
            java.util.Set<Long> now = processesOf(root);
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** Waits until no process of the server with work root {@code root} is left but those in {@code before}. */
    private static void awaitOnly(String root, java.util.Set<Long> before) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        java.util.Set<Long> now = processesOf(root);
        while (!before.containsAll(now) && System.nanoTime() < end) {
            Thread.sleep(100);
            now = processesOf(root);
        }
        now.removeAll(before);
        java.util.List<String> left = now.stream().map(pid -> pid + " " + ProcessHandle.of(pid)
                .flatMap(h -> h.info().commandLine()).orElse("?")).toList();
        assertThat(left).as("processes left running").isEmpty();
    }

    /** Waits until the evaluation runs, and a moment more so that its programs have started. */
    private static void awaitRunning(TestServer s, String key, String id) throws InterruptedException {
        long end = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < end) {
            JsonNode e = TestServer.json(s.get("/v1/evaluations/" + id, key));
            if (e.get("status").asText().equals("RUNNING")) {
                Thread.sleep(1500);
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError(id + " never ran");
    }

    /** Attack that failed, kept: DELETE of a running evaluation kills its programs (the sandbox's own time limit is 10 s). */
    @Test
    void forgettingARunningEvaluationKillsItsPrograms() throws InterruptedException {
        // the server's start-up probes (Piston's versions, which the runtimes wait for) are over, and the sandbox the
        // pool pre-starts after them has started
        assertThat(server.get("/api/v2/runtimes", TestServer.ADMIN_KEY).statusCode()).isEqualTo(200);
        java.util.Set<Long> before = settled(SHARED_ROOT);
        HttpResponse<String> posted = server.post("/v1/evaluations", EvaluationsIT.ANN_KEY, slowEvaluation().toString());
        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
        String id = TestServer.json(posted).get("id").asText();
        awaitRunning(server, EvaluationsIT.ANN_KEY, id);
        assertThat(before.containsAll(processesOf(SHARED_ROOT))).as("the samples run as processes of their own").isFalse();
        assertThat(server.delete("/v1/evaluations/" + id, EvaluationsIT.ANN_KEY).statusCode()).isEqualTo(204);
        awaitOnly(SHARED_ROOT, before);
        assertThat(server.get("/v1/evaluations/" + id, EvaluationsIT.ANN_KEY).statusCode()).isEqualTo(404);
        assertThat(TestServer.json(server.get("/v1/evaluations", EvaluationsIT.ANN_KEY)).get("evaluations")
                .findValuesAsText("id")).doesNotContain(id);
    }

    /** Attack that failed, kept: a server stopped mid-run kills the programs and its store says FAILED, not RUNNING. */
    @Test
    void stoppingTheServerDuringARunKillsItsProgramsAndRecordsItFailed(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws InterruptedException, java.io.IOException {
        String file = dir.resolve("runs.db").toString();
        String id;
        String root = freshWorkRoot();
        try {
            try (TestServer first = TestServer.builder().set("store.kind", "sqlite").set("store.sqlite.path", file)
                    .set("sandbox.process.workRoot", root).start()) {
                HttpResponse<String> posted = first.post("/v1/evaluations", TestServer.ADMIN_KEY, slowEvaluation().toString());
                assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
                id = TestServer.json(posted).get("id").asText();
                awaitRunning(first, TestServer.ADMIN_KEY, id);
                assertThat(processesOf(root)).as("the samples run as processes of their own").isNotEmpty();
            }
            awaitOnly(root, java.util.Set.of());
        } finally {
            removeTree(root);
        }
        try (TestServer second = TestServer.builder().set("store.kind", "sqlite").set("store.sqlite.path", file).start()) {
            JsonNode again = TestServer.json(second.get("/v1/evaluations/" + id, TestServer.ADMIN_KEY));
            assertThat(again.get("status").asText()).as(again.toString()).isEqualTo("FAILED");
            assertThat(again.get("error").asText()).contains("server stopped");
        }
    }

    /**
     * A NUL in the subject was a 500 on PostgreSQL (its text holds no NUL): now a 400 naming the subject. A NUL and
     * odd unicode in task ids go into the report's JSON, escaped, and come back as sent.
     */
    @Test
    void aNulInTheSubjectIsRefusedAndOddTaskIdsComeBackAsSentOnPostgres() throws InterruptedException {
        dev.codeagent.store.postgres.PostgresStoreConfig db = dev.codeagent.store.postgres.TestCluster.get().freshDatabase();
        try (TestServer pg = TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()).start()) {
            ObjectNode nul = EvaluationsIT.tinyEvaluation().put("subject", "nul\u0000here");
            HttpResponse<String> refused = pg.post("/v1/evaluations", TestServer.ADMIN_KEY, nul.toString());
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
            assertThat(TestServer.json(refused).get("errors").get(0).get("field").asText()).isEqualTo("subject");
            assertThat(TestServer.json(refused).get("detail").asText()).contains("control characters");

            String odd = "T\u0000/\u202e\ud83d\ude00<b>";
            ObjectNode body = EvaluationsIT.tinyEvaluation().put("subject", "\u202e\ud83d\ude00 <script>");
            ((ObjectNode) body.get("problems").get(0)).put("task_id", odd);
            ((ObjectNode) body.get("samples").get(0)).put("task_id", odd);
            ((ObjectNode) body.get("samples").get(1)).put("task_id", odd);
            HttpResponse<String> posted = pg.post("/v1/evaluations", TestServer.ADMIN_KEY, body.toString());
            assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
            JsonNode done = EvaluationsIT.awaitDone(pg, TestServer.ADMIN_KEY, TestServer.json(posted).get("id").asText());
            assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("DONE");
            assertThat(done.get("subject").asText()).isEqualTo("\u202e\ud83d\ude00 <script>");
            assertThat(done.get("problems").get(0).get("id").asText()).isEqualTo(odd);
        }
    }

    /** Attack that failed, kept: JSON nested 100,000 deep in a problem is a 400, not a stack overflow or a 500. */
    @Test
    void deeplyNestedJsonIsAClearRefusal() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        String body = "{\"problems\":[{\"task_id\":\"a\",\"x\":" + deep + "}],\"samples\":[{\"task_id\":\"a\","
                + "\"completion\":\"x\"}]}";
        HttpResponse<String> r = server.post("/v1/evaluations", EvaluationsIT.BOB_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("at dev.codeagent").contains("nest");
        assertThat(server.get("/v1/evaluations", EvaluationsIT.BOB_KEY).statusCode()).isEqualTo(200);
    }

    /**
     * With {@code sandbox.maxConcurrent} 2 an evaluation's two workers took every place of the sandbox: an execution
     * waited for one of its sleeping samples to time out. An evaluation leaves a place to executions whenever there are
     * two.
     */
    @Test
    void anEvaluationLeavesAPlaceToExecutionsOnASmallSandbox() throws InterruptedException {
        try (TestServer small = TestServer.builder().set("sandbox.maxConcurrent", "2").start()) {
            HttpResponse<String> posted = small.post("/v1/evaluations", TestServer.ADMIN_KEY, slowEvaluation().toString());
            assertThat(posted.statusCode()).as(posted.body()).isEqualTo(202);
            String id = TestServer.json(posted).get("id").asText();
            try {
                awaitRunning(small, TestServer.ADMIN_KEY, id);
                long t0 = System.nanoTime();
                HttpResponse<String> r = small.post("/v1/executions", TestServer.ADMIN_KEY,
                        "{\"language\":\"python\",\"code\":\"print(1)\"}");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(ms).as("the execution's wait behind the evaluation").isLessThan(4000);
            } finally {
                small.delete("/v1/evaluations/" + id, TestServer.ADMIN_KEY);
            }
        }
    }
}
