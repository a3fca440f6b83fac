package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A worker's {@code /metrics} as a web page in the browser of someone on the worker's machine can reach it: by DNS
 * rebinding (a page whose own name resolves to 127.0.0.1 reads every answer, it is same-origin to the browser), sent
 * on a real socket as the browser would send it. On loopback, where only this machine's programs should read, only a
 * name of this machine is answered; a scraper's address or {@code localhost} still is.
 */
class WorkerMetricsIT {

    @Test
    void aDnsRebindingPageCannotReadTheMetricsOfAWorkerOnLoopback() throws IOException {
        CompositeMeterRegistry root = new CompositeMeterRegistry();
        try (WorkerMetrics metrics = WorkerMetrics.start("127.0.0.1", 0, root)) {
            // counted once the export is there: a composite passes on only what is counted after a registry joins
            root.counter("codeagent_worker_claims").increment();
            String rebound = get(metrics.port(), "evil.example:" + metrics.port());
            assertThat(rebound).as(rebound).startsWith("HTTP/1.1 421");
            assertThat(rebound).contains("evil.example", "--metrics-host").doesNotContain("codeagent_worker_claims");
            assertThat(get(metrics.port(), "evil.example.")).startsWith("HTTP/1.1 421");

            // a scraper on this machine, by address or by name
            for (String host : new String[] {"127.0.0.1:" + metrics.port(), "localhost:" + metrics.port(), "LOCALHOST.",
                    "[::1]:" + metrics.port(), "prometheus.localhost"}) {
                String reply = get(metrics.port(), host);
                assertThat(reply).as(host + ": " + reply).startsWith("HTTP/1.1 200").contains("codeagent_worker_claims_total 1.0");
            }
        }
    }

    @Test
    void aWorkerServingBeyondLoopbackAnswersTheNamesItsScrapersUse() throws IOException {
        CompositeMeterRegistry root = new CompositeMeterRegistry();
        // --metrics-host 0.0.0.0, as docs/scaling-out.md has it for a scraper on another machine, which may know the
        // worker by any DNS name
        try (WorkerMetrics metrics = WorkerMetrics.start("0.0.0.0", 0, root)) {
            root.counter("codeagent_worker_claims").increment();
            String reply = get(metrics.port(), "worker-b.internal:" + metrics.port());
            assertThat(reply).as(reply).startsWith("HTTP/1.1 200").contains("codeagent_worker_claims_total 1.0");
        }
    }

    private static String get(int port, String host) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET /metrics HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
