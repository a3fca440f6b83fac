package dev.codeagent.http;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.Composition;
import dev.codeagent.application.work.ExecutionQueue;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.execution.Sandbox;
import io.javalin.Javalin;
import io.javalin.util.JavalinBindException;
import io.javalin.util.JavalinException;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: code executions, agent runs with live events, a Piston-compatible endpoint, health
 * and metrics, over one {@link Composition} that this server owns and closes. This class is the
 * server's lifecycle; its parts come from the composition ({@link HttpModule}), each use case has its routes
 * ({@link ExecutionRoutes}, {@link RunRoutes}, {@link PistonRoutes}, {@link HealthRoutes}), every request passes the
 * {@link RequestGuard}, and {@link JettyTuning} shapes the transport.
 *
 * <p>Built for hostile callers: API keys (SHA-256 in config, constant-time comparison) with endpoint
 * groups, a rate limit per key, bounded execution queues fair across keys, capped bodies and headers,
 * strict JSON, idle timeouts for slow clients, and RFC 9457 problem documents for every error,
 * never a stack trace. {@link #close()} shuts down gracefully within {@code http.shutdownGrace}.
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    static final int MAX_CONNECTIONS = JettyTuning.MAX_CONNECTIONS;

    private final CodeAgentConfig config;
    private final HttpConfig http;
    private final Sandbox sandbox;
    private final ExecuteCode executeCode;
    private final ApiMetrics metrics;
    private final ExecutionGate executions;
    private final RunService runs;
    private final EventStreams streams;
    private final HealthCheck health;
    private final SessionRoutes sessions;
    private final Stopping stopping;
    private final Closer closer;
    private final Javalin app;
    private final Router router;
    private final HostedEndpoints hosted;
    private final AtomicReference<Server> jetty = new AtomicReference<>();
    private final CountDownLatch stopped = new CountDownLatch(1);

    /**
     * The server over the composition's parts; nothing listens until {@link #start(Composition)}.
     *
     * @param closer the composition's: closing the server closes it, and with it everything the composition opened
     */
    @Inject
    ApiServer(CodeAgentConfig config, HttpConfig http, Sandbox sandbox, ExecuteCode executeCode, ApiMetrics metrics,
            RequestGuard guard, JsonBodies bodies, ApiRequests requests, ExecutionGate executions, RunService runs,
            EventStreams streams, HealthCheck health, SessionRoutes sessions, PistonApi piston, PistonConnect connect,
            Stopping stopping, Optional<WorkQueue> workQueue, Optional<ExecutionQueue> executionQueue, HostedEndpoints hosted,
            Closer closer, IdempotentReplies replies, dev.codeagent.application.submit.SubmitExecutions submissions,
            Callbacks callbacks, dev.codeagent.application.eval.JudgeCode judgeCode,
            dev.codeagent.application.submit.SubmitEvaluations evaluations) {
        this.config = config;
        this.http = http;
        this.sandbox = sandbox;
        this.executeCode = executeCode;
        this.metrics = metrics;
        this.executions = executions;
        this.runs = runs;
        this.streams = streams;
        this.health = health;
        this.sessions = sessions;
        this.stopping = stopping;
        this.closer = closer;
        registerGauges(workQueue, executionQueue);
        this.hosted = hosted;
        this.app = JettyTuning.create(http, jetty, hosted::mount);
        app.before(guard::before);
        app.after(guard::after);
        Router router = new Router(app, metrics);
        new HealthRoutes(health, executeCode, sandbox.tier(), config.store().kind(), runs, metrics, guard, stopping::get)
                .register(router);
        new ExecutionRoutes(executions, bodies, requests, piston, replies, submissions, http.maxBatchSize(), callbacks)
                .register(router);
        new JudgementRoutes(executions, bodies, requests, replies, submissions, judgeCode, callbacks, http.maxBatchSize())
                .register(router);
        new RunRoutes(runs, streams, bodies, requests, replies).register(router);
        new EvaluationRoutes(evaluations, bodies, replies).register(router);
        sessions.register(router);
        new PistonRoutes(executions, bodies, piston).register(router);
        connect.register(app);
        new ApiDescriptionRoutes().register(router);
        new ConsoleRoutes().register(app);
        this.router = router;
    }

    /**
     * Starts the API of a composition, which the server then owns: {@link #close()} closes it, and so does a failed
     * start.
     *
     * @throws ConfigException when the HTTP config cannot work (auth on without keys, port taken, {@code sandbox.kind:
     *     queue} over a store without queues)
     */
    public static ApiServer start(Composition composition) {
        ApiServer server;
        try {
            server = composition.get(ApiServer.class);
        } catch (RuntimeException e) {
            composition.close();
            throw e;
        }
        return server.listen();
    }

    /**
     * Starts listening: for a program that composes with Guice itself ({@code CodeAgentModules} and this module in its
     * own injector) and asked that injector for the server. A failed start closes what the composition opened, as
     * {@link #start(Composition)} does.
     *
     * @throws ConfigException when the port is taken or not allowed
     */
    public ApiServer listen() {
        try {
            app.start();
        } catch (JavalinBindException e) {
            closeQuietly();
            throw new ConfigException("cannot listen on " + http.host() + ":" + http.port()
                    + ": the port is in use or not allowed (http.port)");
        } catch (Exception e) {
            // Jetty can fail here with checked exceptions Kotlin code lets through undeclared
            closeQuietly();
            Throwable cause = e instanceof JavalinException && e.getCause() != null ? e.getCause() : e;
            throw new ConfigException("cannot start the HTTP server on " + http.host() + ":" + http.port()
                    + ": " + cause.getMessage());
        }
        health.refreshIfStale();
        log.info("codeagent HTTP API listening on {} (sandbox {}, store {}, auth {})", uri(),
                sandbox.tier(), config.store().kind(),
                http.auth().enabled() ? "on, " + http.auth().keys().size()
                        + (http.auth().keys().size() == 1 ? " key" : " keys") : "OFF");
        return this;
    }

    /** What every program this server runs lacks of the isolation it could have (best-effort only); empty when nothing. */
    public List<String> isolationMissing() {
        return List.copyOf(sandbox.isolation().sortedMissing());
    }

    /** The port the server listens on (useful with {@code http.port: 0}). */
    public int port() {
        return app.port();
    }

    public URI uri() {
        String host = http.host().contains(":") ? "[" + http.host() + "]" : http.host();
        return URI.create("http://" + host + ":" + port());
    }

    /** Every route the server answers, as {@code METHOD /path/{param}}. */
    List<String> routes() {
        return router.routes();
    }

    /** Blocks until the server has stopped. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    private void registerGauges(Optional<WorkQueue> workQueue, Optional<ExecutionQueue> executionQueue) {
        metrics.gauge("codeagent.sandbox.executions.running", "Executions running in the sandbox (API and runs)",
                executeCode::running);
        metrics.gauge("codeagent.sandbox.executions.max", "Execution places of the sandbox (sandbox.maxConcurrent)",
                executeCode::maxConcurrent);
        executions.registerGauges();
        metrics.gauge("codeagent.runs.active", "Agent runs in progress", runs::active);
        metrics.gauge("codeagent.runs.max", "Agent runs allowed at once", runs::maxRuns);
        metrics.gauge("codeagent.http.event.streams.open", "Open event streams", streams::open);
        metrics.gauge("codeagent.sessions.live", "Sessions open (http.maxSessions caps them)", sessions::live);
        metrics.gauge("codeagent.sessions.ready", "Sessions started ahead and waiting to be opened (http.sessionPool)",
                sessions::ready);
        // over a shared store, how much work waits for the workers, whoever queued it (read from the store per scrape)
        workQueue.ifPresent(queue -> metrics.gauge("codeagent.queue.depth",
                "Runs queued in the shared store, waiting for a worker", queue::depth));
        executionQueue.ifPresent(queue -> metrics.gauge("codeagent.queue.executions.waiting",
                "Single executions queued in the shared store, waiting for a worker", queue::executionsWaiting));
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops gracefully: no new connections or requests, in-flight executions and runs get
     * {@code http.shutdownGrace} to finish and are then cancelled (runs end ERROR, interrupted), event
     * streams end, and the composition is closed (sandbox containers removed). Safe to call more than once.
     */
    @Override
    public void close() {
        if (!stopping.begin()) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        Instant deadline = Instant.now().plus(http.shutdownGrace());
        sessions.close();
        hosted.close();
        log.info("shutting down: in-flight work has {} to finish", Units.formatDuration(http.shutdownGrace()));
        try {
            Server server = jetty.get();
            for (Connector c : server == null ? new Connector[0] : server.getConnectors()) {
                if (c instanceof NetworkConnector) {
                    ((NetworkConnector) c).close();
                }
            }
            runs.stopAccepting();
            while (Instant.now().isBefore(deadline) && (executions.inFlight() > 0 || runs.active() > 0)) {
                Thread.sleep(25);
            }
            if (executions.inFlight() > 0) {
                log.info("cancelling {} executions still running", executions.inFlight());
                executions.cancelAll();
            }
            runs.stopAll(Duration.ofSeconds(5));
            Instant drain = Instant.now().plusSeconds(5);
            while (executions.inFlight() > 0 && Instant.now().isBefore(drain)) {
                Thread.sleep(25);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            runs.closeJournals();
            closeQuietly();
            log.info("stopped");
        }
    }

    private void closeQuietly() {
        try {
            Server server = jetty.get();
            if (server != null && server.isStarted()) {
                // give responses being written a moment; set only now, as a graceful stop of a server that
                // never started fails
                server.setStopTimeout(2000);
            }
            app.stop();
        } catch (Exception e) {
            log.warn("stopping the HTTP server: {}", e.getMessage());
        }
        // the composition's parts, newest first: the door's threads and exporter, then a queued sandbox (which withdraws
        // what this server still has queued), the sandbox's pools and the store
        closer.close();
        stopped.countDown();
    }
}
