package dev.codeagent.cli;

import com.sun.net.httpserver.HttpServer;
import dev.codeagent.application.host.HostNames;
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
 * on one thread. On loopback (the default) it answers only a Host naming this machine: a web page there could otherwise
 * read it by DNS rebinding.
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
        InetSocketAddress address = new InetSocketAddress(host, port);
        HttpServer server = HttpServer.create(address, 8);
        // on loopback only this machine's programs should read, and a web page on it could by DNS rebinding (its own
        // name resolved to 127.0.0.1: same-origin to the browser, which then shows it every answer), so there the
        // Host must be a name of this machine, as the API server's with auth off (adapter-http CrossSite). Beyond
        // loopback the metrics were opened to scrapers on purpose, which may know the worker by any DNS name
        boolean loopback = address.getAddress() != null && address.getAddress().isLoopbackAddress();
        String listening = HostNames.of(host);
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
                String hostHeader = exchange.getRequestHeaders().getFirst("Host");
                if (loopback && hostHeader != null && !HostNames.noPageControls(HostNames.of(hostHeader), listening)) {
                    refuse(exchange, hostHeader);
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

    /** 421 with why, in the text a person reading a scrape's error sees: the name that was used, and what to use. */
    private static void refuse(com.sun.net.httpserver.HttpExchange exchange, String hostHeader) throws IOException {
        String shown = hostHeader.length() > 120 ? hostHeader.substring(0, 120) + "…" : hostHeader;
        byte[] body = ("the Host '" + shown + "' is not a name of this machine: a worker's metrics on loopback answer only"
                + " localhost, a *.localhost name or an IP address, so that no web page can read them by a DNS name of its"
                + " own (DNS rebinding); scrape by one of those, or serve them beyond this machine with --metrics-host\n")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(421, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
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
