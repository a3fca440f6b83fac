package dev.codeagent.http;

import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.session.SessionPlaces;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.run.RunScheduler;
import dev.codeagent.domain.solving.RunLog;
import io.javalin.Javalin;
import io.javalin.util.JavalinBindException;
import io.javalin.util.JavalinException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: code executions, agent runs with live events, a Piston-compatible endpoint, health
 * and metrics, over one composed {@link CodeAgent} that this server owns and closes. This class is the
 * server's lifecycle and composition; each use case has its routes ({@link ExecutionRoutes},
 * {@link RunRoutes}, {@link PistonRoutes}, {@link HealthRoutes}), every request passes the
 * {@link RequestGuard}, and {@link JettyTuning} shapes the transport.
 *
 * <p>Built for hostile callers: API keys (SHA-256 in config, constant-time comparison) with endpoint
 * groups, a rate limit per key, fail-fast bulkheads (a bounded queue only where Piston clients expect one), capped bodies and headers,
 * strict JSON, idle timeouts for slow clients, and RFC 9457 problem documents for every error,
 * never a stack trace. {@link #close()} shuts down gracefully within {@code http.shutdownGrace}.
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    static final int MAX_CONNECTIONS = JettyTuning.MAX_CONNECTIONS;

    private final CodeAgent agent;
    private final CodeAgentConfig config;
    private final HttpConfig http;
    private final ExecuteCode executeCode;
    private final ApiMetrics metrics = new ApiMetrics();
    private final ExecutionGate executions;
    private final PistonConnect connect;
    private final RunService runs;
    private final EventStreams streams;
    private final HealthCheck health;
    private final Javalin app;
    private final Router router;
    private final AtomicReference<Server> jetty = new AtomicReference<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private final SessionRoutes sessions;

    private ApiServer(CodeAgent agent) {
        this.agent = agent;
        this.config = agent.config();
        this.http = HttpConfig.from(config);
        if (http.queuesRuns() && agent.workQueue().isEmpty()) {
            throw new ConfigException("http.runsOn: queue needs a store that keeps a queue for workers (store.kind: postgres),"
                    + " not " + config.store().kind());
        }
        if (http.queuesExecutions() && agent.executionQueue().isEmpty()) {
            throw new ConfigException("http.executionsOn: queue needs a store that keeps a queue for workers (store.kind: postgres),"
                    + " not " + config.store().kind());
        }
        RequestGuard guard = new RequestGuard(http, metrics, stopping::get);
        int maxExecutions = http.maxConcurrentExecutions() > 0 ? http.maxConcurrentExecutions() : config.sandbox().maxConcurrent();
        // on the workers, this server builds no sandbox of its own: its executor is the queue
        this.executeCode = http.queuesExecutions() ? agent.queuedExecuteCode(maxExecutions) : agent.executeCode();
        this.executions = new ExecutionGate(executeCode, maxExecutions, http.maxQueuedExecutions(), http.executionQueueWait(),
                metrics);
        JsonBodies bodies = new JsonBodies(http.maxBodyBytes().bytes(), http.requestTimeout());
        ApiRequests requests = new ApiRequests(config, executeCode.sandbox().languages());

        RunLog runLog = agent.runLog();
        int interrupted = new RecoverInterruptedRuns(runLog).recover();
        if (interrupted > 0) {
            log.info("marked {} runs left unfinished by an earlier process as ERROR", interrupted);
        }
        this.runs = new RunService(new RunScheduler(agent.solveTask(), runLog, http.maxConcurrentRuns(), Clock.systemUTC()),
                runLog, metrics, agent.workQueue().orElse(null), http.queuesRuns(), http.runsPerKey());
        this.streams = new EventStreams(eventStreamPlaces(), Duration.ofSeconds(15));
        this.health = new HealthCheck(executeCode, agent::runLog);
        registerGauges();
        this.app = JettyTuning.create(http, jetty);
        app.before(guard::before);
        app.after(guard::after);
        Router router = new Router(app, metrics);
        new HealthRoutes(health, executeCode, config.store().kind(), runs, metrics, guard, stopping::get).register(router);
        PistonApi piston = new PistonApi(executeCode, config);
        new ExecutionRoutes(executions, bodies, requests, piston).register(router);
        new RunRoutes(runs, streams, bodies, requests).register(router);
        // the server's own registry: its places are the http settings (one owner per key), not the one-owner default
        // the composition gives the command line and the kernel
        // (executions on the workers: this server has no sandbox of its own to host sessions in)
        OpenSessions openSessions = new OpenSessions(http.queuesExecutions() ? java.util.Optional.empty() : agent.sessions(),
                executeCode.sandbox().tier(),
                new SessionPlaces(http.maxSessions(), http.sessionsPerKey(), http.sessionPool()), Clock.systemUTC());
        this.sessions = new SessionRoutes(openSessions, bodies, streams, http.sessionOutputBudget().bytes());
        sessions.register(router);
        new PistonRoutes(executions, bodies, piston).register(router);
        this.connect = new PistonConnect(executions, executeCode, piston, guard, http.maxBodyBytes().bytes());
        connect.register(app);
        new ApiDescriptionRoutes().register(router);
        this.router = router;
    }

    /**
     * Starts the API for a composed agent, which it then owns: {@link #close()} closes it, and so does a
     * failed start.
     *
     * @throws ConfigException when the HTTP config cannot work (auth on without keys, port taken)
     */
    public static ApiServer start(CodeAgent agent) {
        ApiServer server;
        try {
            server = new ApiServer(agent);
        } catch (RuntimeException e) {
            agent.close();
            throw e;
        }
        try {
            server.app.start();
        } catch (JavalinBindException e) {
            server.closeQuietly();
            throw new ConfigException("cannot listen on " + server.http.host() + ":" + server.http.port()
                    + ": the port is in use or not allowed (http.port)");
        } catch (Exception e) {
            // Jetty can fail here with checked exceptions Kotlin code lets through undeclared
            server.closeQuietly();
            Throwable cause = e instanceof JavalinException && e.getCause() != null ? e.getCause() : e;
            throw new ConfigException("cannot start the HTTP server on " + server.http.host() + ":" + server.http.port()
                    + ": " + cause.getMessage());
        }
        server.health.refreshIfStale();
        log.info("codeagent HTTP API listening on {} (sandbox {}, store {}, auth {})", server.uri(),
                server.executeCode.sandbox().tier(), server.config.store().kind(),
                server.http.auth().enabled() ? "on, " + server.http.auth().keys().size()
                        + (server.http.auth().keys().size() == 1 ? " key" : " keys") : "OFF");
        return server;
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

    /** Each open event stream holds a request thread: never let them take more than half the pool. */
    private int eventStreamPlaces() {
        int cap = JettyTuning.MAX_THREADS / 2;
        if (http.maxEventStreams() > cap) {
            log.warn("http.maxEventStreams={} would tie up the request threads; using {}", http.maxEventStreams(), cap);
            return cap;
        }
        return http.maxEventStreams();
    }

    private void registerGauges() {
        metrics.gauge("codeagent.sandbox.executions.running", "Executions running in the sandbox (API and runs)",
                executeCode::running);
        metrics.gauge("codeagent.sandbox.executions.max", "Execution places of the sandbox (sandbox.maxConcurrent)",
                executeCode::maxConcurrent);
        executions.registerGauges();
        metrics.gauge("codeagent.runs.active", "Agent runs in progress", runs::active);
        metrics.gauge("codeagent.runs.max", "Agent runs allowed at once", runs::maxRuns);
        metrics.gauge("codeagent.http.event.streams.open", "Open event streams", streams::open);
        // the session routes are made after the gauges: read them when scraped
        metrics.gauge("codeagent.sessions.live", "Sessions open (http.maxSessions caps them)",
                () -> sessions == null ? 0 : sessions.live());
        metrics.gauge("codeagent.sessions.ready", "Sessions started ahead and waiting to be opened (http.sessionPool)",
                () -> sessions == null ? 0 : sessions.ready());
        // over a shared store, how much work waits for the workers, whoever queued it (read from the store per scrape)
        agent.workQueue().ifPresent(queue -> metrics.gauge("codeagent.queue.depth",
                "Runs queued in the shared store, waiting for a worker", queue::depth));
        agent.executionQueue().ifPresent(queue -> metrics.gauge("codeagent.queue.executions.waiting",
                "Single executions queued in the shared store, waiting for a worker", queue::executionsWaiting));
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops gracefully: no new connections or requests, in-flight executions and runs get
     * {@code http.shutdownGrace} to finish and are then cancelled (runs end ERROR, interrupted), event
     * streams end, and the agent is closed (sandbox containers removed). Safe to call more than once.
     */
    @Override
    public void close() {
        if (!stopping.compareAndSet(false, true)) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        Instant deadline = Instant.now().plus(http.shutdownGrace());
        sessions.close();
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
        connect.close();
        health.close();
        metrics.close();
        if (http.queuesExecutions()) {
            executeCode.sandbox().close(); // withdraws whatever this server still has queued
        }
        agent.close();
        stopped.countDown();
    }
}
