package dev.codeagent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("slow")
class ShutdownIT {

    private static CompletableFuture<HttpResponse<String>> execute(TestServer s, String code) {
        HttpRequest r = s.request("/v1/executions").header("Authorization", "Bearer " + TestServer.ADMIN_KEY)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"python\",\"code\":\"" + code + "\"}")).build();
        return s.client.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void letsInFlightExecutionsFinishAndStopsAcceptingNewConnections() throws Exception {
        TestServer s = TestServer.builder().set("http.shutdownGrace", "10s").start();
        CompletableFuture<HttpResponse<String>> inFlight = execute(s, "import time\\ntime.sleep(1.5)\\nprint('finished')");
        ProtectionIT.waitUntilInFlight(s);
        long t0 = System.nanoTime();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(s::close);
        Thread.sleep(300);

        assertThatThrownBy(() -> java.net.http.HttpClient.newHttpClient().send(s.request("/health").GET().build(),
                HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);

        HttpResponse<String> done = inFlight.get(20, TimeUnit.SECONDS);
        assertThat(done.statusCode()).isEqualTo(200);
        assertThat(TestServer.json(done).get("stdout").asText()).isEqualTo("finished\n");
        closing.get(20, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(8000);
    }

    @Test
    void cancelsWorkThatOutlastsTheGrace() throws Exception {
        TestServer s = TestServer.builder().set("http.shutdownGrace", "500ms").start();
        CompletableFuture<HttpResponse<String>> inFlight = execute(s, "import time\\ntime.sleep(60)");
        ProtectionIT.waitUntilInFlight(s);
        long t0 = System.nanoTime();
        s.close();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(8000);
        HttpResponse<String> cut = inFlight.get(10, TimeUnit.SECONDS);
        assertThat(cut.statusCode()).isEqualTo(503);
        assertThat(TestServer.json(cut).get("type").asText()).isEqualTo("https://codeagent.dev/problems/shutting-down");
    }
}
