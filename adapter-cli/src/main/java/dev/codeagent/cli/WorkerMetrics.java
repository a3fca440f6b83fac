package dev.codeagent.cli;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A worker's {@code /metrics}: the composition's one registry (where the worker counts claims, their latency, runs
 * taken over from a worker that lost its lease, runs worked, and how much work waits) in Prometheus' text format, on a
 * port of its own: a worker has no HTTP API, and a scraper should not need one. Served by the JDK's own HTTP server
 * on one thread.
 */
final class WorkerMetrics implements AutoCloseable {

    private final HttpServer server;
    private final CompositeMeterRegistry root;
    private final PrometheusMeterRegistry prometheus;

    private WorkerMetrics(HttpServer server, CompositeMeterRegistry root, PrometheusMeterRegistry prometheus) {
        this.server = server;
        this.root = root;
        this.prometheus = prometheus;
    }

    /** Starts serving {@code root} on {@code host:port} (0: any free port). */
    static WorkerMetrics start(String host, int port, CompositeMeterRegistry root) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 8);
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "codeagent-worker-metrics");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!"GET".equals(exchange.getRequestMethod()) || !"/metrics".equals(exchange.getRequestURI().getPath())) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] body = prometheus.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        // every meter of the root, made before this or after, is exported from here on
        root.add(prometheus);
        server.start();
        return new WorkerMetrics(server, root, prometheus);
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        root.remove(prometheus);
        prometheus.close();
    }
}
