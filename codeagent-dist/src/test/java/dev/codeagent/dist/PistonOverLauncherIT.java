package dev.codeagent.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Piston's two ways in, against a server started the README's way ({@code ./codeagent serve}, the real launcher):
 * {@code POST /api/v2/execute} of a compiled language, and an interactive {@code /api/v2/connect} session.
 */
@Tag("slow")
class PistonOverLauncherIT {

    private static final String KEY = "piston-launcher-key-0123456789";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Process server;

    @AfterEach
    void stop() throws Exception {
        if (server != null && server.isAlive()) {
            new ProcessBuilder("kill", "-TERM", Long.toString(server.pid())).start().waitFor(10, TimeUnit.SECONDS);
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    void pistonsExecuteAndConnectAnswerFromTheLaunchedServer() throws Exception {
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(KEY.getBytes(StandardCharsets.UTF_8)));
        Path config = Files.writeString(dir.resolve("config.yaml"), "sandbox:\n  kind: process\n"
                + "http:\n  port: 0\n  auth:\n    keys:\n      - {name: piston, sha256: " + sha + ", endpoints: [piston]}\n");
        server = LaunchedWorker.launch(dir, config, "serve", "serve");
        URI base = listening(dir.resolve("serve.err"), dir.resolve("serve.out"));

        HttpResponse<String> executed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve("/api/v2/execute"))
                .header("Authorization", "Bearer " + KEY).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"c\",\"version\":\"*\",\"files\":[{\"content\":"
                        + "\"#include <stdio.h>\\nint main(void) { puts(\\\"compiled\\\"); return 0; }\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(executed.statusCode()).as(executed.body()).isEqualTo(200);
        JsonNode result = JSON.readTree(executed.body());
        assertThat(result.get("compile").get("code").asInt()).as(executed.body()).isZero();
        assertThat(result.get("run").get("stdout").asText()).isEqualTo("compiled\n");

        BlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        CompletableFuture<String> closed = new CompletableFuture<>();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + KEY)
                .buildAsync(URI.create(base.toString().replaceFirst("^http", "ws") + "/api/v2/connect"), new WebSocket.Listener() {
                    private final StringBuilder partial = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
                        partial.append(data);
                        if (last) {
                            try {
                                messages.add(JSON.readTree(partial.toString()));
                            } catch (java.io.IOException e) {
                                throw new AssertionError(e);
                            }
                            partial.setLength(0);
                        }
                        socket.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket socket, int status, String reason) {
                        closed.complete(status + " " + reason);
                        return null;
                    }
                }).join();
        ws.sendText("{\"type\":\"init\",\"language\":\"python\",\"files\":[{\"content\":\"print(int(input()) * 2)\"}]}", true).join();
        ws.sendText("{\"type\":\"data\",\"stream\":\"stdin\",\"data\":\"21\\n\"}", true).join();
        StringBuilder stdout = new StringBuilder();
        JsonNode exit = null;
        while (exit == null) {
            JsonNode m = messages.poll(30, TimeUnit.SECONDS);
            assertThat(m).as("the session answers within 30 s; so far: " + stdout).isNotNull();
            if (m.get("type").asText().equals("data") && m.get("stream").asText().equals("stdout")) {
                stdout.append(m.get("data").asText());
            } else if (m.get("type").asText().equals("exit")) {
                exit = m;
            }
        }
        assertThat(stdout.toString()).isEqualTo("42\n");
        assertThat(exit.get("code").asInt()).isZero();
        assertThat(closed.get(10, TimeUnit.SECONDS)).isEqualTo("4999 Job Completed");
    }

    private static URI listening(Path err, Path out) throws Exception {
        Matcher at = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)").matcher("");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            at = at.reset(Files.readString(err) + Files.readString(out));
            if (at.find()) {
                return URI.create(at.group(1));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the server did not start:\n" + Files.readString(err));
    }
}
