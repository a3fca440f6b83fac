package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What the server says it can run: {@code GET /v1/languages} and Piston's {@code GET /api/v2/packages}. */
class DiscoveryIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void listsTheLanguagesWithVersionsAliasesThatWorkAndWhetherCompiled() {
        JsonNode languages = ok(server.get("/v1/languages", TestServer.ADMIN_KEY));
        JsonNode runtimes = ok(server.get("/api/v2/runtimes", TestServer.ADMIN_KEY));
        JsonNode python = find(languages, "id", "python");
        assertThat(python.get("version").asText()).isEqualTo(find(runtimes, "language", "python").get("version").asText())
                .matches("3\\.\\d+\\.\\d+");
        assertThat(python.get("compiled").asBoolean()).isFalse();
        List<String> aliases = new ArrayList<>();
        python.get("aliases").forEach(a -> aliases.add(a.asText()));
        assertThat(aliases).contains("py", "python3").doesNotContain("python", "py3");
        // every alias listed is one /v1 really accepts
        for (String alias : aliases) {
            HttpResponse<String> r = server.post("/v1/executions", TestServer.ADMIN_KEY,
                    "{\"language\":\"" + alias + "\",\"code\":\"print('via " + alias + "')\"}");
            assertThat(ok(r).get("stdout").asText()).isEqualTo("via " + alias + "\n");
        }
        assertThat(server.get("/v1/languages", null).statusCode()).isEqualTo(401);
    }

    @Test
    void listsInstalledPackagesInPistonsShapeAndIsReadOnly() {
        JsonNode packages = ok(server.get("/api/v2/packages", TestServer.ADMIN_KEY));
        JsonNode runtimes = ok(server.get("/api/v2/runtimes", TestServer.ADMIN_KEY));
        assertThat(packages.size()).isEqualTo(runtimes.size());
        for (JsonNode rt : runtimes) {
            JsonNode p = find(packages, "language", rt.get("language").asText());
            assertThat(p.get("language_version").asText()).isEqualTo(rt.get("version").asText());
            assertThat(p.get("installed").asBoolean()).isTrue();
        }
        HttpResponse<String> install = server.post("/api/v2/packages", TestServer.ADMIN_KEY, "{\"language\":\"cobol\",\"version\":\"*\"}");
        assertThat(install.statusCode()).isEqualTo(405);
        assertThat(install.headers().firstValue("Allow")).hasValueSatisfying(v -> assertThat(v).contains("GET"));
        assertThat(TestServer.json(install).get("message").asText()).isNotBlank();
    }

    private static JsonNode ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return TestServer.json(r);
    }

    private static JsonNode find(JsonNode list, String field, String value) {
        for (JsonNode n : list) {
            if (n.get(field).asText().equals(value)) {
                return n;
            }
        }
        throw new AssertionError("no " + value + " in " + list);
    }
}
