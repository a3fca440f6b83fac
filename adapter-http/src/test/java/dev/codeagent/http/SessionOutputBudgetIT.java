package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.management.ManagementFactory;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One key fills the server's 4 sessions with 1 MB outputs (real kernels, process tier, a real socket, the server in
 * this JVM): the server's heap stays within the sessions' output budgets, the notebooks say what they dropped and
 * are valid for nbformat, and a hostile cell's active content reaches neither the cell's JSON nor the notebook.
 */
@Tag("slow")
class SessionOutputBudgetIT {

    private static final Logger log = LoggerFactory.getLogger(SessionOutputBudgetIT.class);
    private static final int SESSIONS = 4;
    private static final int CELLS = 25;
    /** 4 sessions x 8 MiB of Latin-1 text, plus what the server and the test's own garbage keep around. */
    private static final long BOUND = 48L * 1024 * 1024;

    @TempDir
    Path dir;

    private static long heapAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    @Test
    void fourSessionsOfBigOutputsStayWithinTheirBudgetsAndTheirNotebooksSaySo() throws Exception {
        Process probe = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import ipykernel, jupyter_client, nbformat").start();
        assumeTrue(probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0,
                "needs /usr/bin/python3 with python3-ipykernel, python3-jupyter-client and python3-nbformat");
        // every place to one key (the default share would be 2 of 4): the heap bound is the server's, whoever holds them
        try (TestServer server = TestServer.builder().set("http.sessionPool", "0").set("http.maxSessionsPerKey", "4").start()) {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < SESSIONS; i++) {
                HttpResponse<String> opened = server.post("/v1/sessions", TestServer.ADMIN_KEY, "{\"cellTimeoutMs\": 30000}");
                assertThat(opened.statusCode()).as(opened.body()).isEqualTo(201);
                ids.add(TestServer.json(opened).get("id").asText());
            }
            JsonNode hostile = cell(server, ids.get(0), "from IPython.display import HTML, Javascript, SVG, Markdown, display\n"
                    + "display(HTML('<b>ok</b><img src=x onerror=alert(1)><script>alert(2)</script>'))\n"
                    + "display(Javascript('alert(3)'))\n"
                    + "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(4)\"/>'))\n"
                    + "display(Markdown('[x](javascript:alert(5))'))");
            assertThat(hostile.toString()).contains("<b>ok</b>").doesNotContain("onerror", "<script", "onload",
                    "application/javascript", "image/svg+xml", "javascript:");

            // the cell's source holds the payloads as code (escaped by every viewer); its outputs must not
            HttpResponse<String> early = server.get("/v1/sessions/" + ids.get(0) + "/notebook", TestServer.ADMIN_KEY);
            String outputs = TestServer.json(early).at("/cells/0/outputs").toString();
            assertThat(outputs).contains("<b>ok</b>").doesNotContain("onerror", "<script", "application/javascript",
                    "image/svg+xml", "javascript:");
            Path hostileFile = dir.resolve("hostile.ipynb");
            Files.writeString(hostileFile, early.body(), StandardCharsets.UTF_8);

            long before = heapAfterGc();
            long started = System.nanoTime();
            for (int c = 0; c < CELLS; c++) {
                for (String id : ids) {
                    JsonNode r = cell(server, id, "print('x' * 1_000_000)");
                    assertThat(r.get("status").asText()).isEqualTo("OK");
                }
            }
            long after = heapAfterGc();
            log.info("{} cells of 1 MB in {} s: heap after GC {} MiB -> {} MiB", SESSIONS * CELLS,
                    (System.nanoTime() - started) / 1_000_000_000, before >> 20, after >> 20);
            assertThat(after - before).as("heap growth after %d MB of outputs", SESSIONS * CELLS).isLessThan(BOUND);

            for (String id : ids) {
                HttpResponse<String> nb = server.get("/v1/sessions/" + id + "/notebook", TestServer.ADMIN_KEY);
                assertThat(nb.statusCode()).isEqualTo(200);
                JsonNode doc = TestServer.json(nb);
                assertThat(doc.at("/metadata/codeagent/droppedOutputs").asLong()).isGreaterThan(CELLS - 9);
                assertThat(doc.at("/cells/1/outputs/0/text/0").asText()).startsWith("[codeagent: 1 output of this cell "
                        + "dropped: session output budget 8 MiB]");
            }
            Path full = dir.resolve("full.ipynb");
            Files.writeString(full, server.get("/v1/sessions/" + ids.get(0) + "/notebook", TestServer.ADMIN_KEY).body(),
                    StandardCharsets.UTF_8);
            Process validate = new ProcessBuilder("/usr/bin/python3", "-c",
                    "import sys, nbformat\nfor f in sys.argv[1:]: nbformat.validate(nbformat.read(f, as_version=4))",
                    hostileFile.toString(), full.toString()).redirectErrorStream(true).start();
            String said = new String(validate.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(validate.waitFor(60, TimeUnit.SECONDS) && validate.exitValue() == 0).as(said).isTrue();
        }
    }

    private static JsonNode cell(TestServer server, String id, String code) {
        HttpResponse<String> r = server.post("/v1/sessions/" + id + "/cells", TestServer.ADMIN_KEY,
                Views.MAPPER.createObjectNode().put("code", code).toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return TestServer.json(r);
    }
}
