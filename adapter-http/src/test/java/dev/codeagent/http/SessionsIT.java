package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@code /v1/sessions} over a real socket, each session a real kernel in the process tier. */
@Tag("slow")
class SessionsIT {

    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import ipykernel, jupyter_client").start();
        assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
                "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static JsonNode cell(String id, String code) {
        HttpResponse<String> r = server.post("/v1/sessions/" + id + "/cells", TestServer.ADMIN_KEY,
                Views.MAPPER.createObjectNode().put("code", code).toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return TestServer.json(r);
    }

    @Test
    void aSessionKeepsStateAcrossCellsAndEndsOnDelete() {
        HttpResponse<String> opened = server.post("/v1/sessions", TestServer.ADMIN_KEY, "{\"cellTimeoutMs\": 20000}");
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
        String id = TestServer.json(opened).get("id").asText();
        assertThat(id).hasSizeGreaterThan(20);
        assertThat(opened.headers().firstValue("Location")).hasValue("/v1/sessions/" + id);

        assertThat(cell(id, "x = 20").get("status").asText()).isEqualTo("OK");
        JsonNode printed = cell(id, "print(x + 1)\nx * 2");
        assertThat(printed.get("outputs").get(0).get("text").asText()).isEqualTo("21\n");
        assertThat(printed.get("outputs").get(1).get("data").get("text/plain").asText()).isEqualTo("40");
        JsonNode error = cell(id, "1 / 0");
        assertThat(error.get("status").asText()).isEqualTo("ERROR");
        assertThat(error.get("outputs").get(0).get("name").asText()).isEqualTo("ZeroDivisionError");

        HttpResponse<String> nb = server.get("/v1/sessions/" + id + "/notebook", TestServer.ADMIN_KEY);
        assertThat(nb.statusCode()).isEqualTo(200);
        assertThat(nb.headers().firstValue("Content-Type")).get().asString().startsWith("application/x-ipynb+json");
        JsonNode notebook = TestServer.json(nb);
        assertThat(notebook.get("nbformat").asInt()).isEqualTo(4);
        assertThat(notebook.get("cells")).hasSize(3);

        assertThat(server.post("/v1/sessions/" + id + "/restart", TestServer.ADMIN_KEY, "").statusCode()).isEqualTo(204);
        assertThat(cell(id, "'x' in dir()").get("outputs").get(0).get("data").get("text/plain").asText())
                .as("a restart loses the state").isEqualTo("False");

        assertThat(server.delete("/v1/sessions/" + id, TestServer.ADMIN_KEY).statusCode()).isEqualTo(204);
        HttpResponse<String> gone = server.post("/v1/sessions/" + id + "/cells", TestServer.ADMIN_KEY, "{\"code\": \"1\"}");
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.headers().firstValue("Content-Type")).get().asString().startsWith("application/problem+json");
    }

    @Test
    void aCellStreamsItsOutputsAsServerSentEventsAndTheStreamCanBeResumed() throws Exception {
        HttpResponse<String> opened = server.post("/v1/sessions", TestServer.ADMIN_KEY, "{\"cellTimeoutMs\": 20000}");
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
        String id = TestServer.json(opened).get("id").asText();
        java.net.http.HttpRequest post = server.request("/v1/sessions/" + id + "/cells")
                .timeout(java.time.Duration.ofSeconds(60)).header("Accept", "text/event-stream")
                .header("Authorization", "Bearer " + TestServer.ADMIN_KEY).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Views.MAPPER.createObjectNode()
                        .put("code", "import time\nprint('first', flush=True)\ntime.sleep(1.5)\nprint('second')\n6 * 7").toString()))
                .build();
        String resume;
        try (SseReader sse = new SseReader(post)) {
            assertThat(sse.response.statusCode()).isEqualTo(200);
            assertThat(sse.response.headers().firstValue("Content-Type")).get().asString().startsWith("text/event-stream");
            resume = sse.response.headers().firstValue("Location").orElseThrow();
            assertThat(resume).isEqualTo("/v1/sessions/" + id + "/cells/1/events");
            long start = System.nanoTime();
            SseReader.Event first = sse.next();
            long firstAt = System.nanoTime();
            assertThat(first.name()).isEqualTo("output");
            assertThat(first.id()).isEqualTo(1);
            assertThat(Views.MAPPER.readTree(first.data()).get("text").asText()).isEqualTo("first\n");
            java.util.List<SseReader.Event> rest = sse.rest();
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - firstAt)).as("'first' came while the cell slept")
                    .isGreaterThan(java.time.Duration.ofMillis(1000));
            assertThat(rest).extracting(SseReader.Event::name).containsExactly("output", "output", "result");
            JsonNode result = Views.MAPPER.readTree(rest.get(2).data());
            assertThat(result.get("status").asText()).isEqualTo("OK");
            assertThat(result.get("outputs").get(0).get("text").asText()).isEqualTo("first\nsecond\n");
            assertThat(result.get("outputs").get(1).get("data").get("text/plain").asText()).isEqualTo("42");
            assertThat(start).isPositive();
        }
        // an EventSource that reconnects after event 1 gets the rest, then 204 once it has seen the end
        try (SseReader again = new SseReader(SseReader.get(server, resume, TestServer.ADMIN_KEY, 1L))) {
            assertThat(again.rest()).extracting(SseReader.Event::id).containsExactly(2L, 3L, 4L);
        }
        try (SseReader done = new SseReader(SseReader.get(server, resume, TestServer.ADMIN_KEY, 4L))) {
            assertThat(done.response.statusCode()).isEqualTo(204);
        }
        assertThat(server.get("/v1/sessions/" + id + "/cells/9/events", TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
        assertThat(cell(id, "print('after')").get("outputs").get(0).get("text").asText()).isEqualTo("after\n");
        assertThat(server.delete("/v1/sessions/" + id, TestServer.ADMIN_KEY).statusCode()).isEqualTo(204);
    }

    @Test
    void badInputAndUnknownSessionsGetProblemsNamingWhatIsWrong() {
        HttpResponse<String> badTimeout = server.post("/v1/sessions", TestServer.ADMIN_KEY, "{\"cellTimeoutMs\": 0}");
        assertThat(badTimeout.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(badTimeout).get("errors").get(0).get("field").asText()).isEqualTo("cellTimeoutMs");
        assertThat(server.post("/v1/sessions", TestServer.ADMIN_KEY, "{\"kernel\": \"r\"}").statusCode()).isEqualTo(400);
        assertThat(server.post("/v1/sessions/nope/cells", TestServer.ADMIN_KEY, "{\"code\": \"1\"}").statusCode()).isEqualTo(404);
        assertThat(server.delete("/v1/sessions/nope", TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
    }

    @Test
    void aSessionBelongsToTheKeyThatOpenedIt() {
        String other = "other-sessions-key-5555555555";
        try (TestServer two = TestServer.builder().set("http.auth.keys", "admin:" + ApiKeys.sha256Hex(TestServer.ADMIN_KEY)
                + ",other:" + ApiKeys.sha256Hex(other) + ":sessions").start()) {
            HttpResponse<String> opened = two.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
            String id = TestServer.json(opened).get("id").asText();
            assertThat(two.post("/v1/sessions/" + id + "/cells", TestServer.ADMIN_KEY, "{\"code\": \"secret = 42\"}").statusCode())
                    .isEqualTo(200);

            // another key, even one allowed sessions, cannot use, read or end it: to it the id does not exist
            assertThat(two.post("/v1/sessions/" + id + "/cells", other, "{\"code\": \"print(secret)\"}").statusCode()).isEqualTo(404);
            assertThat(two.get("/v1/sessions/" + id + "/notebook", other).statusCode()).isEqualTo(404);
            assertThat(two.post("/v1/sessions/" + id + "/restart", other, "").statusCode()).isEqualTo(404);
            assertThat(two.delete("/v1/sessions/" + id, other).statusCode()).isEqualTo(404);

            assertThat(two.get("/v1/sessions/" + id + "/notebook", TestServer.ADMIN_KEY).body()).contains("secret = 42");
            assertThat(two.delete("/v1/sessions/" + id, TestServer.ADMIN_KEY).statusCode()).isEqualTo(204);
        }
    }

    @Test
    void sessionsNeedAKeyOfTheirGroup() {
        assertThat(server.post("/v1/sessions", null, "{}").statusCode()).isEqualTo(401);
        assertThat(server.post("/v1/sessions", "not-a-key", "{}").statusCode()).isEqualTo(401);
        HttpResponse<String> forbidden = server.post("/v1/sessions", TestServer.EXEC_KEY, "{}");
        assertThat(forbidden.statusCode()).isEqualTo(403);
        assertThat(TestServer.json(forbidden).get("detail").asText()).contains("sessions");
    }

    @Test
    void theNumberOfLiveSessionsIsCappedByConfigAndAnEndedOneFreesItsPlace() {
        // no pool: this is about the cap (a pooled session does not count against it, and starting one meanwhile
        // only loads the machine)
        try (TestServer one = TestServer.builder().set("http.maxSessions", "1").set("http.sessionPool", "0").start()) {
            HttpResponse<String> first = one.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
            HttpResponse<String> second = one.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(second.statusCode()).isEqualTo(503);
            assertThat(TestServer.json(second).get("detail").asText()).contains("at most 1 session", "http.maxSessions");
            assertThat(one.delete("/v1/sessions/" + TestServer.json(first).get("id").asText(), TestServer.ADMIN_KEY).statusCode())
                    .isEqualTo(204);
            HttpResponse<String> third = one.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(third.statusCode()).as(third.body()).isEqualTo(201);
        }
        try (TestServer off = TestServer.builder().set("http.maxSessions", "0").start()) {
            HttpResponse<String> refused = off.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(TestServer.json(refused).get("detail").asText()).contains("turned off", "http.maxSessions is 0");
        }
    }

    @Test
    void filesGoInAndComeOutOfTheSessionsWorkingDirectoryAndNoLinkLeadsOutOfIt() throws Exception {
        HttpResponse<String> opened = server.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
        assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
        String id = TestServer.json(opened).get("id").asText();
        try {
            String base = server.base.resolve("/v1/sessions/" + id + "/files/").toString();
            java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
            HttpResponse<String> put = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "data/in.csv"))
                    .header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                    .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("a,b\n1,2\n3,4\n")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).as(put.body()).isEqualTo(204);
            assertThat(cell(id, "import csv\nrows = list(csv.DictReader(open('data/in.csv')))\n"
                    + "open('out.bin', 'wb').write(bytes(range(256)))\nsum(int(r['b']) for r in rows)")
                    .get("outputs").get(0).get("data").get("text/plain").asText()).isEqualTo("6");
            HttpResponse<byte[]> got = client.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + "out.bin"))
                    .header("Authorization", "Bearer " + TestServer.ADMIN_KEY).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
            byte[] all = new byte[256];
            for (int i = 0; i < 256; i++) {
                all[i] = (byte) i;
            }
            assertThat(got.body()).isEqualTo(all);

            assertThat(server.get("/v1/sessions/" + id + "/files/missing.txt", TestServer.ADMIN_KEY).statusCode()).isEqualTo(404);
            HttpResponse<String> empty = server.get("/v1/sessions/" + id + "/files/a//b", TestServer.ADMIN_KEY);
            assertThat(empty.statusCode()).as(empty.body()).isIn(400, 404);
            // a cell plants links to files outside the working directory: the files endpoint does not follow them
            cell(id, "import os\nos.symlink('/proc/self/environ', 'env')\nos.makedirs('d', exist_ok=True)\n"
                    + "os.symlink('/', 'd/root')");
            HttpResponse<String> link = server.get("/v1/sessions/" + id + "/files/env", TestServer.ADMIN_KEY);
            assertThat(link.statusCode()).as(link.body()).isEqualTo(400);
            assertThat(TestServer.json(link).get("detail").asText()).contains("symbolic link");
            assertThat(server.get("/v1/sessions/" + id + "/files/d/root/etc/hostname", TestServer.ADMIN_KEY).statusCode())
                    .isEqualTo(400);
        } finally {
            server.delete("/v1/sessions/" + id, TestServer.ADMIN_KEY);
        }
    }

    @Test
    void onceASessionIsAskedForTheNextIsStartedAheadAndHandedOutFresh() throws Exception {
        try (TestServer pooled = TestServer.builder().set("http.sessionPool", "1").start()) {
            HttpResponse<String> first = pooled.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
            String one = TestServer.json(first).get("id").asText();
            assertThat(pooled.post("/v1/sessions/" + one + "/cells", TestServer.ADMIN_KEY, "{\"code\": \"x = 1\"}").statusCode())
                    .isEqualTo(200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!pooled.get("/metrics", TestServer.OPS_KEY).body().contains("codeagent_sessions_ready 1")
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(pooled.get("/metrics", TestServer.OPS_KEY).body()).contains("codeagent_sessions_ready 1", "codeagent_sessions_live 1");
            HttpResponse<String> second = pooled.post("/v1/sessions", TestServer.ADMIN_KEY, "{}");
            assertThat(second.statusCode()).as(second.body()).isEqualTo(201);
            String two = TestServer.json(second).get("id").asText();
            assertThat(two).isNotEqualTo(one);
            HttpResponse<String> fresh = pooled.post("/v1/sessions/" + two + "/cells", TestServer.ADMIN_KEY,
                    "{\"code\": \"'x' in dir()\"}");
            assertThat(TestServer.json(fresh).get("outputs").get(0).get("data").get("text/plain").asText())
                    .as("a pooled session is no other session's").isEqualTo("False");
        }
    }
}
