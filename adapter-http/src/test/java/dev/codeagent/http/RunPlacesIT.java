package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run places ({@code http.maxConcurrentRuns}) are the server's, as the session places are (SessionPlacesIT): one
 * key starting long runs must not take every place while another key is refused, and its refusal names only its own
 * share, not how many runs the other keys have going.
 */
@Tag("slow")
class RunPlacesIT {

    private static final String ALICE = "alice-test-key-0123456789";
    private static final String BOB = "bob-test-key-0123456789";

    @TempDir
    Path dir;

    @Test
    void oneKeyCannotTakeEveryRunPlaceFromAnother() throws Exception {
        String marker = "codeagent-run-places-it-" + UUID.randomUUID();
        Path replies = dir.resolve("replies.jsonl");
        String sleeper = "```python\nimport os, sys\nos.execv(sys.executable, [sys.executable, '-c', "
                + "'import time; time.sleep(30)', '" + marker + "'])\n```";
        Files.writeString(replies, (Views.MAPPER.createObjectNode().put("reply", sleeper) + "\n").repeat(4));
        try (TestServer s = TestServer.builder().generator(null).set("generator.kind", "replay")
                .set("generator.replay.file", replies.toString()).set("http.maxConcurrentRuns", "2")
                .set("http.auth.keys", "alice:" + ApiKeys.sha256Hex(ALICE) + ":runs,bob:" + ApiKeys.sha256Hex(BOB) + ":runs")
                .start()) {
            List<String[]> started = new ArrayList<>();
            try {
                HttpResponse<String> b1 = s.post("/v1/runs", BOB, run());
                assertThat(b1.statusCode()).as(b1.body()).isEqualTo(202);
                started.add(new String[] {BOB, TestServer.json(b1).get("id").asText()});
                HttpResponse<String> b2 = s.post("/v1/runs", BOB, run());
                if (b2.statusCode() == 202) {
                    started.add(new String[] {BOB, TestServer.json(b2).get("id").asText()});
                }
                assertThat(b2.statusCode()).as("B's second run, with 2 places and 2 keys: " + b2.body()).isEqualTo(503);
                String detail = TestServer.json(b2).get("detail").asText();
                assertThat(detail).contains("this key", "at most 1 run", "http.maxConcurrentRunsPerKey");
                assertThat(b2.headers().firstValue("Retry-After")).isPresent();

                HttpResponse<String> a1 = s.post("/v1/runs", ALICE, run());
                if (a1.statusCode() == 202) {
                    started.add(new String[] {ALICE, TestServer.json(a1).get("id").asText()});
                }
                assertThat(a1.statusCode()).as("A's run while B holds its share: " + a1.body()).isEqualTo(202);
            } finally {
                for (String[] r : started) {
                    s.delete("/v1/runs/" + r[1], r[0]);
                }
            }
            // a finished run gives its place back to its key
            RunsIT.waitFor(() -> s.post("/v1/runs", BOB, run()).statusCode() == 202, 15_000, "B's place to come back");
        }
    }

    private static String run() {
        return "{\"prompt\":\"sleep\",\"limits\":{\"timeoutMs\":30000},\"maxAttempts\":1}";
    }
}
