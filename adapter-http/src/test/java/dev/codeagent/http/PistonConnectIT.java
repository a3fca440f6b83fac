package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code /api/v2/connect} spoken by a real WebSocket client (the JDK's) over a real socket, message for message as
 * Piston's {@code v2.js} defines the protocol: init, runtime, stage, data both ways, signal, exit, close 4999; and
 * its error closes.
 */
@Tag("slow")
class PistonConnectIT {

    /** The server the clients talk to; {@link PistonConnectDockerIT} starts one over the docker tier instead. */
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.builder().start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** One client connection: every message, and how it closed. */
    private static final class Client implements WebSocket.Listener {
        final BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<String> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        WebSocket socket;

        static Client open(String key) {
            Client c = new Client();
            URI uri = URI.create(server.base.toString().replaceFirst("^http", "ws") + "/api/v2/connect");
            WebSocket.Builder b = HttpClient.newHttpClient().newWebSocketBuilder();
            if (key != null) {
                b.header("Authorization", "Bearer " + key);
            }
            c.socket = b.buildAsync(uri, c).join();
            return c;
        }

        void send(String json) {
            socket.sendText(json, true).join();
        }

        /** The next message of a type, skipping none: what came before it is returned too. */
        List<JsonNode> until(String type) throws InterruptedException {
            List<JsonNode> seen = new ArrayList<>();
            while (true) {
                JsonNode m = messages.poll(20, TimeUnit.SECONDS);
                assertThat(m).as("a " + type + " message within 20 s after " + seen).isNotNull();
                seen.add(m);
                if (m.get("type").asText().equals(type)) {
                    return seen;
                }
            }
        }

        String closeCode() throws Exception {
            return closed.get(20, TimeUnit.SECONDS);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                messages.add(readJson(partial.toString()));
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            closed.complete(status + " " + reason);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closed.complete("error " + error);
        }
    }

    private static JsonNode readJson(String text) {
        try {
            return Views.MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    private static String stdout(List<JsonNode> messages) {
        StringBuilder s = new StringBuilder();
        messages.stream().filter(m -> m.get("type").asText().equals("data") && m.get("stream").asText().equals("stdout"))
                .forEach(m -> s.append(m.get("data").asText()));
        return s.toString();
    }

    @Test
    void anInteractiveProgramReadsWhatTheClientSendsWhileItRuns() throws Exception {
        Client c = Client.open(TestServer.ADMIN_KEY);
        c.send("{\"type\":\"init\",\"language\":\"python\",\"version\":\"3.x\",\"files\":[{\"content\":"
                + "\"print('name?', flush=True)\\nprint('hello ' + input()[::-1])\"}]}");
        JsonNode runtime = c.until("runtime").get(0);
        assertThat(runtime.get("language").asText()).isEqualTo("python");
        assertThat(runtime.get("version").asText()).matches("3\\.\\d+\\.\\d+");
        assertThat(c.until("stage").get(0).get("stage").asText()).isEqualTo("run");
        StringBuilder asked = new StringBuilder();
        while (!asked.toString().endsWith("\n")) {
            asked.append(stdout(c.until("data")));
        }
        assertThat(asked.toString()).isEqualTo("name?\n");
        c.send("{\"type\":\"data\",\"stream\":\"stdin\",\"data\":\"ecila\\n\"}");
        List<JsonNode> rest = c.until("exit");
        assertThat(stdout(rest)).isEqualTo("hello alice\n");
        JsonNode exit = rest.get(rest.size() - 1);
        assertThat(exit.get("stage").asText()).isEqualTo("run");
        assertThat(exit.get("code").asInt()).isZero();
        assertThat(exit.get("signal").isNull()).isTrue();
        assertThat(c.closeCode()).isEqualTo("4999 Job Completed");
    }

    @Test
    void aSignalFromTheClientEndsTheProgram() throws Exception {
        Client c = Client.open(TestServer.ADMIN_KEY);
        c.send("{\"type\":\"init\",\"language\":\"python\",\"files\":[{\"content\":"
                + "\"import time\\nprint('waiting', flush=True)\\ntime.sleep(30)\"}],\"run_timeout\":20000}");
        assertThat(stdout(c.until("data"))).startsWith("waiting");
        c.send("{\"type\":\"signal\",\"signal\":\"SIGTERM\"}");
        List<JsonNode> rest = c.until("exit");
        JsonNode exit = rest.get(rest.size() - 1);
        assertThat(exit.get("signal").asText()).as(exit.toString()).isEqualTo("SIGTERM");
        assertThat(exit.get("code").isNull()).isTrue();
        assertThat(c.closeCode()).isEqualTo("4999 Job Completed");
    }

    @Test
    void aCompiledLanguageHasACompileStageFirst() throws Exception {
        org.assertj.core.api.Assumptions.assumeThat(java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/gcc"))
                || System.getenv("CI") != null).isTrue();
        Client c = Client.open(TestServer.ADMIN_KEY);
        c.send("{\"type\":\"init\",\"language\":\"c\",\"files\":[{\"content\":"
                + "\"#include <stdio.h>\\nint main(void) { char s[32]; if (!fgets(s, sizeof s, stdin)) return 1;"
                + " printf(\\\"got %s\\\", s); return 0; }\"}]}");
        // sent while it compiles: kept for the run stage (init's own stdin is not written, as in Piston)
        c.send("{\"type\":\"data\",\"stream\":\"stdin\",\"data\":\"early\\n\"}");
        List<JsonNode> compile = c.until("exit");
        assertThat(compile).extracting(m -> m.get("type").asText()).contains("runtime", "stage");
        assertThat(compile.stream().filter(m -> m.get("type").asText().equals("stage")).findFirst().orElseThrow()
                .get("stage").asText()).isEqualTo("compile");
        JsonNode compiled = compile.get(compile.size() - 1);
        assertThat(compiled.get("stage").asText()).isEqualTo("compile");
        assertThat(compiled.get("code").asInt()).as(compile.toString()).isZero();
        List<JsonNode> run = c.until("exit");
        assertThat(stdout(run)).isEqualTo("got early\n");
        assertThat(run.get(run.size() - 1).get("stage").asText()).isEqualTo("run");
        assertThat(c.closeCode()).isEqualTo("4999 Job Completed");

        Client broken = Client.open(TestServer.ADMIN_KEY);
        broken.send("{\"type\":\"init\",\"language\":\"c\",\"files\":[{\"content\":\"int main(void) { return x; }\"}]}");
        List<JsonNode> failed = broken.until("exit");
        JsonNode exit = failed.get(failed.size() - 1);
        assertThat(exit.get("stage").asText()).isEqualTo("compile");
        assertThat(exit.get("code").asInt()).isEqualTo(1);
        assertThat(failed.toString()).contains("undeclared");
        assertThat(broken.closeCode()).as("no run stage after a failed compile").isEqualTo("4999 Job Completed");
    }

    /** An init carries what /api/v2/execute's body carries (http.maxBodyBytes, 2 MiB), not Jetty's 64 KiB. */
    @Test
    void aProgramAsLargeAsExecuteTakesCanBeSent() throws Exception {
        Client c = Client.open(TestServer.ADMIN_KEY);
        String padding = "#" + "x".repeat(300_000);
        c.send("{\"type\":\"init\",\"language\":\"python\",\"files\":[{\"content\":\"print('big')\\n" + padding + "\"}]}");
        assertThat(stdout(c.until("exit"))).isEqualTo("big\n");
        assertThat(c.closeCode()).isEqualTo("4999 Job Completed");
    }

    @Test
    void protocolErrorsCloseWithPistonsCodes() throws Exception {
        Client early = Client.open(TestServer.ADMIN_KEY);
        early.send("{\"type\":\"data\",\"stream\":\"stdin\",\"data\":\"x\"}");
        assertThat(early.closeCode()).isEqualTo("4003 Not yet initialized");

        Client silent = Client.open(TestServer.ADMIN_KEY);
        assertThat(silent.closeCode()).isEqualTo("4001 Initialization Timeout");

        Client unknown = Client.open(TestServer.ADMIN_KEY);
        unknown.send("{\"type\":\"init\",\"language\":\"cobol\",\"files\":[{\"content\":\"x\"}]}");
        JsonNode error = unknown.until("error").get(0);
        assertThat(error.get("message").asText()).isEqualTo("cobol-* runtime is unknown");
        assertThat(unknown.closeCode()).isEqualTo("4002 Notified Error");

        Client twice = Client.open(TestServer.ADMIN_KEY);
        String init = "{\"type\":\"init\",\"language\":\"python\",\"files\":[{\"content\":\"input()\"}],\"run_timeout\":5000}";
        twice.send(init);
        twice.until("stage");
        twice.send("{\"type\":\"signal\",\"signal\":\"SIGNOPE\"}");
        assertThat(twice.closeCode()).isEqualTo("4005 Invalid signal");

        // stdin sent while nothing runs yet (javac takes most of a second) is kept in memory: capped
        Client flood = Client.open(TestServer.ADMIN_KEY);
        flood.send("{\"type\":\"init\",\"language\":\"java\",\"files\":[{\"content\":"
                + "\"public class Main { public static void main(String[] a) { } }\"}]}");
        String chunk = "x".repeat(60_000);
        for (int i = 0; i < 20 && !flood.closed.isDone(); i++) {
            try {
                flood.socket.sendText("{\"type\":\"data\",\"stream\":\"stdin\",\"data\":\"" + chunk + "\"}", true).join();
            } catch (java.util.concurrent.CompletionException closedMeanwhile) {
                break;
            }
        }
        List<JsonNode> got = flood.until("error");
        assertThat(got.get(got.size() - 1).get("message").asText()).contains("limited to 1048576 bytes");
        assertThat(flood.closeCode()).isEqualTo("4002 Notified Error");

        Client again = Client.open(TestServer.ADMIN_KEY);
        again.send(init);
        again.until("stage");
        again.send(init);
        assertThat(again.closeCode()).isEqualTo("4000 Already Initialized");
    }

    @Test
    void theUpgradeNeedsAKey() {
        assertThatThrownBy(() -> Client.open(null)).hasCauseInstanceOf(java.net.http.WebSocketHandshakeException.class)
                .satisfies(e -> assertThat(((java.net.http.WebSocketHandshakeException) e.getCause()).getResponse().statusCode())
                        .isEqualTo(401));
    }
}
