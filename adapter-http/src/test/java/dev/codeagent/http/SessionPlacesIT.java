package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Attack (issue 29, round 4): a session belongs to the key that opened it, and another key gets 404 for it — but the
 * places are the server's ({@code http.maxSessions}, default 4), not the key's. Key B opens every place (and keeps its
 * sessions alive with a cell now and then); key A is refused with 503 "at most N sessions … end one first" for as long
 * as B likes — and B, opening until refused, learns how many sessions the other keys hold at any moment.
 *
 * <p>What must be true: one key cannot take another key's place (a per-key share of {@code http.maxSessions}, or a
 * per-key cap below it), and the refusal says nothing of other keys' sessions.
 */
@Tag("slow")
class SessionPlacesIT {

    private static final String ALICE = "alice-test-key-0123456789";
    private static final String BOB = "bob-test-key-0123456789";

    @Test
    void oneKeyCannotTakeEverySessionPlaceFromAnother() throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import ipykernel, jupyter_client").start();
        assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
                "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        try (TestServer s = TestServer.builder().set("http.maxSessions", "2").set("http.sessionPool", "0")
                .set("http.auth.keys", "alice:" + ApiKeys.sha256Hex(ALICE) + ":sessions,bob:" + ApiKeys.sha256Hex(BOB)
                        + ":sessions")
                .start()) {
            HttpResponse<String> b1 = s.post("/v1/sessions", BOB, "{}");
            HttpResponse<String> b2 = s.post("/v1/sessions", BOB, "{}");
            assertThat(b1.statusCode()).as(b1.body()).isEqualTo(201);
            HttpResponse<String> a1 = s.post("/v1/sessions", ALICE, "{}");
            try {
                assertThat(a1.statusCode()).as("A's first session, while B holds " + (b2.statusCode() == 201 ? 2 : 1) + ": "
                        + a1.body()).isEqualTo(201);
            } finally {
                for (HttpResponse<String> r : java.util.List.of(b1, b2)) {
                    if (r.statusCode() == 201) {
                        s.delete("/v1/sessions/" + TestServer.json(r).get("id").asText(), BOB);
                    }
                }
                if (a1.statusCode() == 201) {
                    s.delete("/v1/sessions/" + TestServer.json(a1).get("id").asText(), ALICE);
                }
            }
        }
    }

    /** Not a reviewer's attack: the refusal a key meets at its own cap speaks of that key's sessions alone. */
    @Test
    void theRefusalNamesOnlyTheKeysOwnShare() throws Exception {
        Process p = new ProcessBuilder("/usr/bin/python3", "-I", "-c", "import ipykernel, jupyter_client").start();
        assumeTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0,
                "needs /usr/bin/python3 with python3-ipykernel and python3-jupyter-client");
        try (TestServer s = TestServer.builder().set("http.maxSessions", "3").set("http.sessionPool", "0")
                .set("http.auth.keys", "alice:" + ApiKeys.sha256Hex(ALICE) + ":sessions,bob:" + ApiKeys.sha256Hex(BOB)
                        + ":sessions")
                .start()) {
            HttpResponse<String> a1 = s.post("/v1/sessions", ALICE, "{}");
            HttpResponse<String> b1 = s.post("/v1/sessions", BOB, "{}");
            HttpResponse<String> b2 = s.post("/v1/sessions", BOB, "{}");
            try {
                assertThat(a1.statusCode()).as(a1.body()).isEqualTo(201);
                assertThat(b1.statusCode()).as(b1.body()).isEqualTo(201);
                assertThat(b2.statusCode()).as(b2.body()).isEqualTo(503);
                String detail = TestServer.json(b2).get("detail").asText();
                assertThat(detail).contains("this key", "at most 1 session", "http.maxSessionsPerKey")
                        .doesNotContain("3").doesNotContain("2");
            } finally {
                for (HttpResponse<String> r : java.util.List.of(a1, b1, b2)) {
                    if (r.statusCode() == 201) {
                        s.delete("/v1/sessions/" + TestServer.json(r).get("id").asText(), r == a1 ? ALICE : BOB);
                    }
                }
            }
        }
    }
}
