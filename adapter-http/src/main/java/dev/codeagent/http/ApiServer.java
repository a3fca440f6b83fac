package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.CodeAgent;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.config.HttpConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.run.RunScheduler;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.http.ProblemException.Type;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.util.JavalinBindException;
import io.javalin.util.JavalinException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.BlockingArrayQueue;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: code executions, agent runs with live events, a Piston-compatible endpoint, health
 * and metrics, over one composed {@link CodeAgent} that this server owns and closes.
 *
 * <p>Built for hostile callers: API keys (SHA-256 in config, constant-time comparison) with endpoint
 * groups, a rate limit per key, fail-fast bulkheads instead of queues, capped bodies and headers,
 * strict JSON, idle timeouts for slow clients, and RFC 9457 problem documents for every error,
 * never a stack trace. {@link #close()} shuts down gracefully within {@code http.shutdownGrace}.
 */
public final class ApiServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9_-]{1,128}");
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");
    private static final int AUTH_FAILURES_PER_MINUTE = 30;
    private static final int MAX_THREADS = 200;
    static final int MAX_CONNECTIONS = 1024;
    private static final String ROUTE = "codeagent.route";
    private static final String STARTED = "codeagent.started";
    private static final String REQUEST_ID = "codeagent.requestId";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final CodeAgent agent;
    private final CodeAgentConfig config;
    private final HttpConfig http;
    private final ExecuteCode executeCode;
    private final ApiKeys keys;
    private final RateLimits rateLimits = new RateLimits();
    private final Bulkhead executions;
    private final Set<Thread> inFlight = ConcurrentHashMap.newKeySet();
    private final ApiMetrics metrics = new ApiMetrics();
    private final JsonBodies bodies;
    private final ApiRequests requests;
    private final RunService runs;
    private final EventStreams streams;
    private final HealthCheck health;
    private final PistonApi piston;
    private final Javalin app;
    private final AtomicReference<Server> jetty = new AtomicReference<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final CountDownLatch stopped = new CountDownLatch(1);

    private ApiServer(CodeAgent agent) {
        this.agent = agent;
        this.config = agent.config();
        this.http = config.http();
        if (http.auth().enabled() && http.auth().keys().isEmpty()) {
            throw new ConfigException("http.auth.enabled is true but http.auth.keys is empty: add a key (name and the SHA-256"
                    + " of the key: printf %s \"$KEY\" | sha256sum) or, for local use only, set http.auth.enabled=false");
        }
        if (!http.auth().enabled()) {
            log.warn("http.auth.enabled=false: every request is allowed without an API key{}",
                    isLoopback(http.host()) ? "; use this only on a trusted machine"
                            : " and the server listens on " + http.host() + ", beyond this machine");
        }
        this.executeCode = agent.executeCode();
        this.keys = new ApiKeys(http.auth().keys());
        int maxExecutions = http.maxConcurrentExecutions() > 0 ? http.maxConcurrentExecutions() : config.sandbox().maxConcurrent();
        this.executions = Bulkhead.of("http-executions", BulkheadConfig.custom()
                .maxConcurrentCalls(maxExecutions)
                .maxWaitDuration(Duration.ZERO)
                .build());
        this.bodies = new JsonBodies(http.maxBodyBytes().bytes(), http.requestTimeout());
        this.requests = new ApiRequests(config, executeCode.sandbox().languages());

        RunLog runLog = agent.runLog();
        int interrupted = new RecoverInterruptedRuns(runLog).recover();
        if (interrupted > 0) {
            log.info("marked {} runs left unfinished by an earlier process as ERROR", interrupted);
        }
        this.runs = new RunService(new RunScheduler(agent.solveTask(), runLog, http.maxConcurrentRuns(), Clock.systemUTC()),
                runLog, metrics);
        this.streams = new EventStreams(eventStreamPlaces(), Duration.ofSeconds(15));
        this.health = new HealthCheck(executeCode, agent::runLog);
        this.piston = new PistonApi(executeCode, config);
        registerGauges(maxExecutions);
        this.app = Javalin.create(cfg -> {
            cfg.showJavalinBanner = false;
            cfg.startupWatcherEnabled = false;
            cfg.http.prefer405over404 = true;
            cfg.http.disableCompression();
            cfg.http.maxRequestSize = http.maxBodyBytes().bytes();
            cfg.jetty.threadPool = threadPool();
            cfg.jetty.modifyServer(server -> {
                jetty.set(server);
                server.setErrorHandler(new Problems.JettyErrorHandler());
                // a flood of idle connections must not use up the file descriptors the sandbox needs: beyond
                // this Jetty stops accepting until some close (the head deadline and idle timeout close them)
                server.addBean(new ConnectionLimit(MAX_CONNECTIONS, server));
            });
            cfg.jetty.modifyHttpConfiguration(hc -> {
                hc.setRequestHeaderSize((int) http.maxHeaderBytes().bytes());
                hc.setSendServerVersion(false);
                hc.setSendXPoweredBy(false);
                // a client trickling its body slower than this is cut off (on top of the idle timeout)
                hc.setMinRequestDataRate(1024);
            });
            cfg.jetty.addConnector((server, hc) -> {
                ServerConnector c = new ServerConnector(server, new HeadDeadlineConnectionFactory(hc, http.requestTimeout()));
                c.setHost(http.host());
                c.setPort(http.port());
                c.setIdleTimeout(http.requestTimeout().toMillis());
                c.setAcceptQueueSize(128);
                return c;
            });
            cfg.pvt.javaLangErrorHandler((res, error) -> {
                log.error("fatal error while serving a request", error);
                try {
                    res.setStatus(500);
                    res.setContentType(Problems.CONTENT_TYPE);
                    res.getOutputStream().write(Problems.json(Problems.body(new ProblemException(Type.INTERNAL,
                            "internal error"), null, false)).getBytes(StandardCharsets.UTF_8));
                } catch (IOException | IllegalStateException e) {
                    log.debug("could not write the error response: {}", e.toString());
                }
            });
        });
        routes();
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
                server.http.auth().enabled() ? "on, " + server.http.auth().keys().size() + " keys" : "OFF");
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

    /** Blocks until the server has stopped. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Each open event stream holds a request thread: never let them take more than half the pool. */
    private int eventStreamPlaces() {
        int cap = MAX_THREADS / 2;
        if (http.maxEventStreams() > cap) {
            log.warn("http.maxEventStreams={} would tie up the request threads; using {}", http.maxEventStreams(), cap);
            return cap;
        }
        return http.maxEventStreams();
    }

    private QueuedThreadPool threadPool() {
        // a bounded queue: under a flood Jetty sheds connections instead of piling up work
        QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, 8, 60_000, new BlockingArrayQueue<>(256, 256, 4096));
        pool.setName("http");
        pool.setDaemon(false);
        return pool;
    }

    private void registerGauges(int maxExecutions) {
        metrics.gauge("codeagent.sandbox.executions.running", "Executions running in the sandbox (API and runs)",
                executeCode::running);
        metrics.gauge("codeagent.sandbox.executions.max", "Execution places of the sandbox (sandbox.maxConcurrent)",
                executeCode::maxConcurrent);
        metrics.gauge("codeagent.http.executions.inflight", "Executions the API is running now",
                () -> maxExecutions - executions.getMetrics().getAvailableConcurrentCalls());
        metrics.gauge("codeagent.http.executions.max", "Executions the API runs at once before refusing",
                () -> maxExecutions);
        metrics.gauge("codeagent.runs.active", "Agent runs in progress", runs::active);
        metrics.gauge("codeagent.runs.max", "Agent runs allowed at once", runs::maxRuns);
        metrics.gauge("codeagent.http.event.streams.open", "Open event streams", streams::open);
    }

    // ---------------------------------------------------------------- routing

    private void routes() {
        app.before(this::before);
        app.after(this::after);
        app.exception(ProblemException.class, (e, ctx) -> problem(ctx, e));
        app.exception(HttpResponseException.class, (e, ctx) -> {
            ProblemException p = Problems.forStatus(e.getStatus(), describeJavalin(e, ctx));
            String allowed = e.getDetails().get("availableMethods");
            if (allowed != null) {
                ctx.header("Allow", allowed);
            }
            problem(ctx, p);
        });
        app.exception(Exception.class, (e, ctx) -> {
            log.error("request {} {} failed (id {})", ctx.method(), ctx.path(), ctx.attribute(REQUEST_ID), e);
            problem(ctx, new ProblemException(Type.INTERNAL, "internal error; quote request id " + ctx.attribute(REQUEST_ID)
                    + " when reporting it"));
        });

        route(HandlerType.GET, "/health", this::health);
        route(HandlerType.GET, "/metrics", ctx -> {
            ctx.contentType("text/plain; version=0.0.4; charset=utf-8");
            ctx.result(metrics.scrape());
        });
        route(HandlerType.POST, "/v1/executions", this::execute);
        route(HandlerType.POST, "/v1/runs", this::startRun);
        route(HandlerType.GET, "/v1/runs", this::listRuns);
        route(HandlerType.GET, "/v1/runs/{id}", this::getRun);
        route(HandlerType.DELETE, "/v1/runs/{id}", this::cancelRun);
        route(HandlerType.GET, "/v1/runs/{id}/events", this::events);
        route(HandlerType.POST, "/api/v2/execute", this::pistonExecute);
        route(HandlerType.GET, "/api/v2/runtimes", ctx -> json(ctx, 200, piston.runtimes()));
    }

    private void route(HandlerType method, String path, Handler handler) {
        app.addHttpHandler(method, path, ctx -> {
            ctx.attribute(ROUTE, path);
            handler.handle(ctx);
        });
    }

    /** The endpoint group a path belongs to, or null for open ones. */
    static String group(String path) {
        if (path.startsWith("/v1/executions")) {
            return "executions";
        }
        if (path.startsWith("/v1/runs")) {
            return "runs";
        }
        if (path.startsWith("/api/v2")) {
            return "piston";
        }
        if (path.startsWith("/metrics")) {
            return "metrics";
        }
        return null;
    }

    private void before(Context ctx) {
        ctx.attribute(STARTED, System.nanoTime());
        byte[] id = new byte[6];
        RANDOM.nextBytes(id);
        String requestId = HexFormat.of().formatHex(id);
        ctx.attribute(REQUEST_ID, requestId);
        ctx.header("X-Request-Id", requestId);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Cache-Control", "no-store");
        String group = group(ctx.path());
        if (group == null) {
            return;
        }
        if (stopping.get()) {
            throw ProblemException.retryLater(Type.SHUTTING_DOWN, "the server is shutting down", Duration.ofSeconds(5));
        }
        authorize(ctx, group);
    }

    private void authorize(Context ctx, String group) {
        String address = ctx.req().getRemoteAddr();
        if (!http.auth().enabled()) {
            limit("address:" + address, http.rateLimitPerMinute());
            return;
        }
        Optional<Duration> blocked = rateLimits.exhausted("auth-failures:" + address, AUTH_FAILURES_PER_MINUTE);
        if (blocked.isPresent()) {
            metrics.rejected("rate_limited");
            throw ProblemException.retryLater(Type.RATE_LIMITED, "too many failed authentication attempts from this address",
                    blocked.get());
        }
        Optional<String> presented = ApiKeys.presented(ctx.header("Authorization"));
        if (presented.isEmpty()) {
            authFailed(address);
            throw new ProblemException(Type.UNAUTHORIZED, "send an API key as 'Authorization: Bearer <key>'");
        }
        Optional<HttpConfig.ApiKey> key = keys.find(presented.get());
        if (key.isEmpty()) {
            authFailed(address);
            throw new ProblemException(Type.UNAUTHORIZED, "the API key is not valid");
        }
        if (!key.get().allows(group)) {
            metrics.rejected("forbidden");
            throw new ProblemException(Type.FORBIDDEN, "the key '" + key.get().name() + "' may not use the " + group
                    + " endpoints; it may use: " + String.join(", ", key.get().endpoints()));
        }
        int perMinute = key.get().rateLimitPerMinute() != null ? key.get().rateLimitPerMinute() : http.rateLimitPerMinute();
        limit("key:" + key.get().name(), perMinute);
    }

    private void authFailed(String address) {
        metrics.rejected("unauthorized");
        rateLimits.acquire("auth-failures:" + address, AUTH_FAILURES_PER_MINUTE);
    }

    private void limit(String caller, int perMinute) {
        Optional<Duration> wait = rateLimits.acquire(caller, perMinute);
        if (wait.isPresent()) {
            metrics.rejected("rate_limited");
            throw ProblemException.retryLater(Type.RATE_LIMITED, "the rate limit of " + perMinute + " requests per minute is used up",
                    wait.get());
        }
    }

    private void after(Context ctx) {
        Long started = ctx.attribute(STARTED);
        String route = ctx.attribute(ROUTE);
        String method = ctx.method().name();
        metrics.request(METHODS.contains(method) ? method : "OTHER", route == null ? "unmatched" : route, ctx.statusCode(),
                started == null ? 0 : System.nanoTime() - started);
        if (log.isDebugEnabled()) {
            log.debug("{} {} {} {}ms", method, ctx.path(), ctx.statusCode(),
                    started == null ? 0 : (System.nanoTime() - started) / 1_000_000);
        }
    }

    private void problem(Context ctx, ProblemException p) {
        ctx.status(p.status());
        if (p.retryAfter() != null) {
            ctx.header("Retry-After", Long.toString(Math.max(1, (p.retryAfter().toMillis() + 999) / 1000)));
        }
        if (p.type() == Type.UNAUTHORIZED) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"codeagent\"");
        }
        if (p.type() == Type.VALIDATION || p.type() == Type.MALFORMED_JSON || p.type() == Type.INVALID_ENCODING
                || p.type() == Type.UNSUPPORTED_LANGUAGE || p.type() == Type.BODY_TOO_LARGE) {
            metrics.rejected(p.type() == Type.BODY_TOO_LARGE ? "too_large" : "invalid");
        }
        ObjectNode body = Problems.body(p, ctx.path(), ctx.path().startsWith("/api/v2"));
        ctx.contentType(Problems.CONTENT_TYPE);
        ctx.result(Problems.json(body));
    }

    private static String describeJavalin(HttpResponseException e, Context ctx) {
        switch (e.getStatus()) {
            case 404:
                return "no such resource: " + JsonBodies.abbreviate(ctx.path(), 200);
            case 405:
                return ctx.method().name().length() > 16 ? "method not allowed here"
                        : ctx.method().name() + " is not allowed here";
            case 413:
                return "the body is too large (http.maxBodyBytes)";
            default:
                return JsonBodies.abbreviate(e.getMessage(), 200);
        }
    }

    private static void json(Context ctx, int status, JsonNode body) {
        ctx.status(status);
        ctx.contentType("application/json");
        try {
            ctx.result(Views.MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    // ---------------------------------------------------------------- executions

    private void execute(Context ctx) {
        ApiRequests.ExecutionBody body = bodies.strict(ctx, ApiRequests.ExecutionBody.class);
        ExecutionRequest request = requests.execution(body);
        json(ctx, 200, Views.execution(run(request, "api")));
    }

    private void pistonExecute(Context ctx) {
        PistonApi.ExecuteBody body = bodies.lenient(ctx, PistonApi.ExecuteBody.class);
        ExecutionRequest request = piston.request(body);
        json(ctx, 200, piston.response(request.program().language(), run(request, "piston")));
    }

    /** Runs one execution behind the fail-fast bulkhead; overload is a quick 503, never a queue. */
    private Execution run(ExecutionRequest request, String via) {
        try {
            executeCode.validate(request);
        } catch (InvalidRequestException e) {
            throw invalid(e);
        }
        // the sandbox's own places are shared with agent runs and would queue: when they are all taken, say so now
        if (executeCode.running() >= executeCode.maxConcurrent() || !executions.tryAcquirePermission()) {
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, "every execution place is busy (" + executeCode.running() + " of "
                    + executeCode.maxConcurrent() + " running); try again shortly", Duration.ofSeconds(1));
        }
        Thread self = Thread.currentThread();
        inFlight.add(self);
        try {
            Execution e = executeCode.execute(request);
            metrics.execution(e, via);
            return e;
        } catch (OverloadedException e) {
            metrics.rejected("overloaded");
            throw ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), e.retryAfter() == null ? Duration.ofSeconds(1)
                    : e.retryAfter());
        } catch (InvalidRequestException e) {
            throw invalid(e);
        } catch (ExecutionCancelledException e) {
            throw ProblemException.retryLater(Type.SHUTTING_DOWN, "the server is shutting down; the execution was stopped",
                    Duration.ofSeconds(5));
        } finally {
            inFlight.remove(self);
            executions.onComplete();
            // an interrupt meant for this execution must not reach the next request on this pool thread
            Thread.interrupted();
        }
    }

    private ProblemException invalid(InvalidRequestException e) {
        if ("language".equals(e.field())) {
            return new ProblemException(Type.UNSUPPORTED_LANGUAGE, "language: " + e.getMessage(),
                    List.of(new ProblemException.FieldError("language", e.getMessage())), null,
                    Map.of("supported", executeCode.sandbox().languages().stream().map(l -> l.id()).sorted().toList()));
        }
        return ProblemException.invalid(e.field() == null ? "body" : e.field(), e.getMessage());
    }

    // ---------------------------------------------------------------- runs

    private void startRun(Context ctx) {
        ApiRequests.RunBody body = bodies.strict(ctx, ApiRequests.RunBody.class);
        Task task = requests.task(body);
        String id = SolveTask.newRunId();
        Run run = runs.start(id, task);
        ctx.header("Location", "/v1/runs/" + id);
        json(ctx, 202, Views.run(runs.find(id).orElse(run)));
    }

    private void listRuns(Context ctx) {
        int limit = 20;
        String rawLimit = ctx.queryParam("limit");
        if (rawLimit != null) {
            try {
                limit = Integer.parseInt(rawLimit.trim());
            } catch (NumberFormatException e) {
                throw ProblemException.invalid("limit", "must be a whole number between 1 and 100");
            }
            if (limit < 1 || limit > 100) {
                throw ProblemException.invalid("limit", "must be between 1 and 100, was " + limit);
            }
        }
        String before = ctx.queryParam("before");
        if (before != null) {
            if (!RUN_ID.matcher(before).matches() || runs.find(before).isEmpty()) {
                throw ProblemException.invalid("before", "no run with id '" + JsonBodies.abbreviate(before, 40) + "'");
            }
        }
        List<Run> page = runs.recent(limit, before);
        ObjectNode body = Views.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("runs");
        page.forEach(r -> list.add(Views.runSummary(r)));
        String next = page.size() == limit ? page.get(page.size() - 1).id() : null;
        body.put("next", next);
        if (next != null) {
            ctx.header("Link", "</v1/runs?limit=" + limit + "&before=" + next + ">; rel=\"next\"");
        }
        json(ctx, 200, body);
    }

    private String runId(Context ctx) {
        String id = ctx.pathParam("id");
        if (!RUN_ID.matcher(id).matches()) {
            throw new ProblemException(Type.NOT_FOUND, "no run with that id");
        }
        return id;
    }

    private void getRun(Context ctx) {
        String id = runId(ctx);
        Run run = runs.find(id).orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no run with id '" + id + "'"));
        json(ctx, 200, Views.run(run));
    }

    private void cancelRun(Context ctx) throws InterruptedException {
        String id = runId(ctx);
        Optional<RunScheduler.Cancellation> cancelled = runs.cancel(id, Duration.ofSeconds(2));
        if (cancelled.isPresent()) {
            json(ctx, cancelled.get().ended() ? 200 : 202, Views.run(cancelled.get().run()));
            return;
        }
        Run run = runs.find(id).orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no run with id '" + id + "'"));
        if (run.status() == RunStatus.CANCELLED) {
            json(ctx, 200, Views.run(run));
        } else if (run.status() == RunStatus.RUNNING) {
            throw new ProblemException(Type.CONFLICT, "run '" + id + "' is not being worked on by this server");
        } else {
            throw new ProblemException(Type.CONFLICT, "run '" + id + "' has already ended as " + run.status());
        }
    }

    private void events(Context ctx) {
        String id = runId(ctx);
        long lastId = lastEventId(ctx);
        EventJournal journal = runs.journal(id).orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no run with id '" + id + "'"));
        streams.acquire();
        streams.stream(ctx.res(), journal, lastId);
    }

    private static long lastEventId(Context ctx) {
        String raw = ctx.header("Last-Event-ID");
        String field = "Last-Event-ID";
        if (raw == null) {
            raw = ctx.queryParam("lastEventId");
            field = "lastEventId";
        }
        if (raw == null || raw.isBlank()) {
            return 0;
        }
        try {
            long v = Long.parseLong(raw.trim());
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw ProblemException.invalid(field, "must be the id of an event received before (a whole number)");
        }
    }

    // ---------------------------------------------------------------- health

    private void health(Context ctx) throws InterruptedException {
        HealthCheck.Status s = health.current(Duration.ofSeconds(5));
        // /health answers anyone; why a check failed (error texts that may name files and hosts) only key holders
        boolean detailed = !http.auth().enabled() || ApiKeys.presented(ctx.header("Authorization")).flatMap(keys::find).isPresent();
        boolean ready = s.ready() && !stopping.get();
        ObjectNode body = Views.MAPPER.createObjectNode();
        body.put("status", ready ? "UP" : "DOWN");
        body.put("live", true);
        body.put("ready", ready);
        body.put("shuttingDown", stopping.get());
        ObjectNode sandbox = body.putObject("sandbox");
        sandbox.put("tier", executeCode.sandbox().tier());
        sandbox.put("ok", s.sandboxOk());
        if (detailed) {
            sandbox.put("detail", s.sandboxDetail());
        }
        sandbox.put("probeMs", s.probeMillis());
        sandbox.put("checkedAt", s.checkedAt().toString());
        sandbox.put("running", executeCode.running());
        sandbox.put("maxConcurrent", executeCode.maxConcurrent());
        ObjectNode store = body.putObject("store");
        store.put("kind", config.store().kind());
        store.put("ok", s.storeOk());
        if (detailed) {
            store.put("detail", s.storeDetail());
        }
        ObjectNode runsNode = body.putObject("runs");
        runsNode.put("active", runs.active());
        runsNode.put("max", runs.maxRuns());
        json(ctx, ready ? 200 : 503, body);
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
        log.info("shutting down: in-flight work has {} to finish", Units.formatDuration(http.shutdownGrace()));
        try {
            Server server = jetty.get();
            for (Connector c : server == null ? new Connector[0] : server.getConnectors()) {
                if (c instanceof NetworkConnector) {
                    ((NetworkConnector) c).close();
                }
            }
            runs.stopAccepting();
            while (Instant.now().isBefore(deadline) && (!inFlight.isEmpty() || runs.active() > 0)) {
                Thread.sleep(25);
            }
            if (!inFlight.isEmpty()) {
                log.info("cancelling {} executions still running", inFlight.size());
                inFlight.forEach(Thread::interrupt);
            }
            runs.stopAll(Duration.ofSeconds(5));
            Instant drain = Instant.now().plusSeconds(5);
            while (!inFlight.isEmpty() && Instant.now().isBefore(drain)) {
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
        health.close();
        metrics.close();
        agent.close();
        stopped.countDown();
    }

    private static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]");
    }
}
