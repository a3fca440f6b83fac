package dev.codeagent.cli;

import com.sun.net.httpserver.HttpServer;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.ProcessQueuedExecutions;
import dev.codeagent.application.work.ProcessQueuedRuns;
import dev.codeagent.application.work.WorkQueue;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Executors;

/**
 * A worker's {@code /metrics} in Prometheus' text format, on a port of its own: a worker has no HTTP API, and a
 * scraper should not need one to see what the worker does (claims, their latency, runs taken over from a worker that
 * lost its lease, runs worked) and how much work waits. Served by the JDK's own HTTP server on one thread.
 */
final class WorkerMetrics implements AutoCloseable {

    private final HttpServer server;

    private WorkerMetrics(HttpServer server) {
        this.server = server;
    }

    /** Starts serving on {@code host:port} (0: any free port). */
    static WorkerMetrics start(String host, int port, WorkQueue queue, ProcessQueuedRuns worker, ExecutionQueue executionQueue,
            ProcessQueuedExecutions executions) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 8);
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
                byte[] body = (text(queue, worker.stats()) + text(executionQueue, executions.stats())).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                exchange.sendResponseHeaders(200, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
        server.start();
        return new WorkerMetrics(server);
    }

    int port() {
        return server.getAddress().getPort();
    }

    static String text(ExecutionQueue queue, ProcessQueuedExecutions.Stats s) {
        return gauge("codeagent_queue_executions_waiting", "Single executions queued in the shared store, waiting for a worker",
                        queue::executionsWaiting)
                + counter("codeagent_worker_execution_claims_total", "Queued executions this worker claimed", s.claims())
                + summary("codeagent_worker_execution_claim_seconds", "Time the claims that got an execution took",
                        s.claims(), s.claimSeconds())
                + counter("codeagent_worker_execution_takeovers_total",
                        "Executions claimed after their earlier worker lost its lease", s.takeovers())
                + counter("codeagent_worker_executions_worked_total", "Executions whose result this worker recorded", s.worked())
                + counter("codeagent_worker_executions_refused_total", "Results refused: withdrawn or taken over meanwhile",
                        s.refused());
    }

    static String text(WorkQueue queue, ProcessQueuedRuns.Stats s) {
        return gauge("codeagent_queue_depth", "Runs queued in the shared store, waiting for a worker", queue::depth)
                + counter("codeagent_worker_claims_total", "Runs this worker claimed", s.claims())
                + summary("codeagent_worker_claim_seconds", "Time the claims that got a run took (one store transaction each)",
                        s.claims(), s.claimSeconds())
                + counter("codeagent_worker_takeovers_total", "Runs claimed after their earlier worker lost its lease",
                        s.takeovers())
                + counter("codeagent_worker_runs_worked_total", "Runs worked to their end by this worker", s.worked());
    }

    /** A gauge read from the store now; NaN when the store cannot be read: said so, not guessed. */
    private static String gauge(String name, String help, java.util.function.IntSupplier read) {
        String value;
        try {
            value = Integer.toString(read.getAsInt());
        } catch (RuntimeException storeDown) {
            value = "NaN";
        }
        return family(name, help, "gauge") + name + " " + value + "\n";
    }

    private static String counter(String name, String help, long value) {
        return family(name, help, "counter") + name + " " + value + "\n";
    }

    private static String summary(String name, String help, long count, double sumSeconds) {
        return family(name, help, "summary") + name + "_count " + count + "\n"
                + name + "_sum " + String.format(Locale.ROOT, "%.6f", sumSeconds) + "\n";
    }

    private static String family(String name, String help, String type) {
        return "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
