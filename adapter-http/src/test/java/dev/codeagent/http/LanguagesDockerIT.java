package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/languages} answers for the tier that serves: on docker (issue 33, "every language on every tier") it
 * lists JavaScript with the image's node version, and a JavaScript execution runs there.
 */
@Tag("docker")
class LanguagesDockerIT {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().set("sandbox.kind", "docker").start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void theDockerTierListsJavaScriptWithTheImagesNodeAndRunsIt() {
        JsonNode languages = TestServer.json(server.get("/v1/languages", TestServer.ADMIN_KEY));
        List<String> ids = new ArrayList<>();
        languages.forEach(l -> ids.add(l.get("id").asText()));
        assertThat(ids).as(languages.toString()).contains("python", "bash", "javascript");
        JsonNode js = null;
        for (JsonNode l : languages) {
            if (l.get("id").asText().equals("javascript")) {
                js = l;
            }
        }
        assertThat(js.get("compiled").asBoolean()).isFalse();

        JsonNode run = TestServer.json(server.post("/v1/executions", TestServer.ADMIN_KEY,
                "{\"language\":\"javascript\",\"code\":\"console.log(process.versions.node)\"}"));
        assertThat(run.get("outcome").asText()).as(run.toString()).isEqualTo("OK");
        assertThat(run.get("sandbox").asText()).isEqualTo("docker");
        // the version listed is the one the tier really runs: probed in the image, not read from the host
        assertThat(js.get("version").asText()).isEqualTo(run.get("stdout").asText().trim()).matches("\\d+\\.\\d+\\.\\d+");
    }
}
