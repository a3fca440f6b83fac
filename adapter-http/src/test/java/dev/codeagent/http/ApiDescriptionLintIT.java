package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The description the server really serves, linted by Redocly's CLI (pinned in
 * src/test/openapi-lint/package-lock.json) with its recommended rules: an error fails the build.
 */
@Tag("slow")
class ApiDescriptionLintIT {

    @Test
    void theServedDescriptionPassesRedoclyLint() throws Exception {
        Path work = NodeTools.install("openapi-lint", "openapi-lint", "@redocly/cli");
        try (TestServer server = TestServer.builder().start()) {
            HttpResponse<String> served = server.get("/openapi.json", null);
            assertThat(served.statusCode()).isEqualTo(200);
            Files.writeString(work.resolve("openapi.json"), served.body());
        }
        String out = NodeTools.run(work, List.of(NodeTools.NODE.toString(), "node_modules/@redocly/cli/bin/cli.js", "lint",
                "--config", "redocly.yaml", "openapi.json"), 180);
        assertThat(out).contains("openapi.json: validated").doesNotContain("error was generated");
    }
}
