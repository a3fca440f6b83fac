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
        String waiting;
        try {
            waiting = Integer.toString(queue.executionsWaiting());
        } catch (RuntimeException storeDown) {
            waiting = "NaN";
        }
        return "# HELP codeagent_queue_executions_waiting Single executions queued in the shared store, waiting for a worker\n"
                + "# TYPE codeagent_queue_executions_waiting gauge\n"
                + "codeagent_queue_executions_waiting " + waiting + "\n"
                + "# HELP codeagent_worker_execution_claims_total Queued executions this worker claimed\n"
                + "# TYPE codeagent_worker_execution_claims_total counter\n"
                + "codeagent_worker_execution_claims_total " + s.claims() + "\n"
                + "# HELP codeagent_worker_execution_claim_seconds Time the claims that got an execution took\n"
                + "# TYPE codeagent_worker_execution_claim_seconds summary\n"
                + "codeagent_worker_execution_claim_seconds_count " + s.claims() + "\n"
                + "codeagent_worker_execution_claim_seconds_sum " + String.format(Locale.ROOT, "%.6f", s.claimSeconds()) + "\n"
                + "# HELP codeagent_worker_execution_takeovers_total Executions claimed after their earlier worker lost its lease\n"
                + "# TYPE codeagent_worker_execution_takeovers_total counter\n"
                + "codeagent_worker_execution_takeovers_total " + s.takeovers() + "\n"
                + "# HELP codeagent_worker_executions_worked_total Executions whose result this worker recorded\n"
                + "# TYPE codeagent_worker_executions_worked_total counter\n"
                + "codeagent_worker_executions_worked_total " + s.worked() + "\n"
                + "# HELP codeagent_worker_executions_refused_total Results refused: withdrawn or taken over meanwhile\n"
                + "# TYPE codeagent_worker_executions_refused_total counter\n"
                + "codeagent_worker_executions_refused_total " + s.refused() + "\n";
    }

    static String text(WorkQueue queue, ProcessQueuedRuns.Stats s) {
        String depth;
        try {
            depth = Integer.toString(queue.depth());
        } catch (RuntimeException storeDown) {
            depth = "NaN"; // the store cannot be read now: said so, not guessed
        }
        return "# HELP codeagent_queue_depth Runs queued in the shared store, waiting for a worker\n"
                + "# TYPE codeagent_queue_depth gauge\n"
                + "codeagent_queue_depth " + depth + "\n"
                + "# HELP codeagent_worker_claims_total Runs this worker claimed\n"
                + "# TYPE codeagent_worker_claims_total counter\n"
                + "codeagent_worker_claims_total " + s.claims() + "\n"
                + "# HELP codeagent_worker_claim_seconds Time the claims that got a run took (one store transaction each)\n"
                + "# TYPE codeagent_worker_claim_seconds summary\n"
                + "codeagent_worker_claim_seconds_count " + s.claims() + "\n"
                + "codeagent_worker_claim_seconds_sum " + String.format(Locale.ROOT, "%.6f", s.claimSeconds()) + "\n"
                + "# HELP codeagent_worker_takeovers_total Runs claimed after their earlier worker lost its lease\n"
                + "# TYPE codeagent_worker_takeovers_total counter\n"
                + "codeagent_worker_takeovers_total " + s.takeovers() + "\n"
                + "# HELP codeagent_worker_runs_worked_total Runs worked to their end by this worker\n"
                + "# TYPE codeagent_worker_runs_worked_total counter\n"
                + "codeagent_worker_runs_worked_total " + s.worked() + "\n";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
