package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.codeagent.store.postgres.PostgresStoreConfig;
import dev.codeagent.store.postgres.TestCluster;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Submitted executions are kept in the run store: a server that stopped and started again (SQLite), or another front
 * door of the same database (PostgreSQL), still answers for them; and they are forgotten after {@code http.resultsKeep}.
 */
@Tag("slow")
class SubmissionsRestartIT {

    @TempDir
    Path dir;

    private TestServer.Builder sqlite() {
        return TestServer.builder().set("store.kind", "sqlite").set("store.sqlite.path", dir.resolve("runs.db").toString());
    }

    @Test
    void resultsSurviveARestartInSqlite() throws Exception {
        survivesARestart(this::sqlite);
    }

    @Test
    void resultsSurviveARestartInPostgres() throws Exception {
        PostgresStoreConfig db = TestCluster.get().freshDatabase();
        survivesARestart(() -> TestServer.builder().set("store.kind", "postgres").set("store.postgres.jdbcUrl", db.jdbcUrl())
                .set("store.postgres.user", db.user()).set("store.postgres.password", db.password()));
    }

    private void survivesARestart(java.util.function.Supplier<TestServer.Builder> server) throws Exception {
        String id;
        String printed;
        try (TestServer a = server.get().start()) {
            HttpResponse<String> r = a.post("/v1/executions", TestServer.ADMIN_KEY,
                    "{\"language\":\"python\",\"code\":\"import random\\nprint(random.random())\",\"wait\":false}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            id = TestServer.json(r).get("id").asText();
            JsonNode done = SubmissionsIT.awaitDone(a, List.of(id), 60).get(0);
            printed = done.get("result").get("stdout").asText();
            assertThat(printed).matches("0\\.\\d+\\n");
        }
        try (TestServer b = server.get().start()) {
            HttpResponse<String> r = b.get("/v1/executions/" + id, TestServer.ADMIN_KEY);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode again = TestServer.json(r);
            assertThat(again.get("status").asText()).isEqualTo("DONE");
            assertThat(again.get("result").get("stdout").asText()).isEqualTo(printed);
            // still the key's own after the restart
            assertThat(b.get("/v1/executions/" + id, TestServer.EXEC_KEY).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void resultsAreForgottenAfterResultsKeep() throws Exception {
        try (TestServer s = sqlite().set("http.resultsKeep", "1s").start()) {
            HttpResponse<String> r = s.post("/v1/executions", TestServer.ADMIN_KEY,
                    "{\"language\":\"python\",\"code\":\"print(1)\",\"wait\":false}");
            String id = TestServer.json(r).get("id").asText();
            SubmissionsIT.awaitDone(s, List.of(id), 60);
            Thread.sleep(1500);
            HttpResponse<String> gone = s.get("/v1/executions/" + id, TestServer.ADMIN_KEY);
            assertThat(gone.statusCode()).isEqualTo(404);
            assertThat(TestServer.json(gone).get("detail").asText()).contains("http.resultsKeep");
        }
    }
}
