package dev.codeagent.http;

import com.google.inject.Provides;
import dev.codeagent.application.command.IdempotencyKeys;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.submit.SubmitEvaluations;
import dev.codeagent.application.execute.FairPlaces;
import dev.codeagent.application.submit.EvaluationLog;
import dev.codeagent.application.submit.ExecutionResults;
import dev.codeagent.application.submit.SubmitExecutions;
import dev.codeagent.application.inject.Closer;
import dev.codeagent.application.inject.LazySingleton;
import dev.codeagent.application.run.RecoverInterruptedRuns;
import dev.codeagent.application.run.RunScheduler;
import dev.codeagent.application.session.OpenSessions;
import dev.codeagent.application.session.SessionPlaces;
import dev.codeagent.application.spi.AdapterModule;
import dev.codeagent.application.spi.ConfigSection;
import dev.codeagent.application.work.RunPlacement;
import dev.codeagent.application.work.WorkModule;
import dev.codeagent.application.work.WorkQueue;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.domain.solving.RunLog;
import jakarta.inject.Provider;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP door's part of the composition: its config section ({@code http}) and its parts, each made once per
 * composition and only when the server is asked for ({@code codeagent exec} on the same class path builds none of
 * them). Whatever a part opens (threads, the Prometheus exporter) is registered with the {@link Closer}, so it closes
 * with the composition, newest first; the server's own graceful stop comes before that.
 *
 * <p>The door takes its sandbox, executor, run log and queues from the composition like any other consumer; where
 * runs are worked is the application's {@link RunPlacement}, not a setting of this door.
 */
public final class HttpModule extends AdapterModule {

    private static final Logger log = LoggerFactory.getLogger(HttpModule.class);

    @Override
    public List<ConfigSection<?>> sections() {
        return List.of(HttpConfig.SECTION);
    }

    @Override
    protected void configure() {
        // the run placement and the store's queues the door takes; bound once however many modules install it
        install(new WorkModule());
        bind(ApiServer.class).in(LazySingleton.class);
        bind(Stopping.class).in(LazySingleton.class);
        // what other doors serve in this server (the MCP door's /mcp); none when no such door is on the class path
        com.google.inject.multibindings.Multibinder.newSetBinder(binder(), dev.codeagent.application.spi.HostedEndpoint.class);
    }

    @Provides
    @LazySingleton
    HostedEndpoints hosted(java.util.Set<dev.codeagent.application.spi.HostedEndpoint> endpoints, RequestGuard guard,
            ApiMetrics metrics) {
        return new HostedEndpoints(endpoints, guard, metrics);
    }

    @Provides
    @LazySingleton
    ApiMetrics metrics(io.micrometer.core.instrument.composite.CompositeMeterRegistry registry, Closer closer) {
        return closer.register(new ApiMetrics(registry));
    }

    @Provides
    @LazySingleton
    RequestGuard guard(HttpConfig http, ApiMetrics metrics, Stopping stopping) {
        return new RequestGuard(http, metrics, stopping::get);
    }

    @Provides
    @LazySingleton
    JsonBodies bodies(HttpConfig http) {
        return new JsonBodies(http.maxBodyBytes().bytes(), http.requestTimeout());
    }

    @Provides
    @LazySingleton
    ApiRequests requests(CodeAgentConfig config, Sandbox sandbox) {
        return new ApiRequests(config, sandbox.languages());
    }

    /** Answers kept for the retries of requests sent with an {@code Idempotency-Key} ({@code http.idempotencyKeep}). */
    @Provides
    @LazySingleton
    IdempotentReplies replies(HttpConfig http, Clock clock) {
        return new IdempotentReplies(new IdempotencyKeys<>(http.idempotencyKeep(), HttpConfig.MAX_IDEMPOTENCY_KEYS, clock));
    }

    /**
     * The execution places of the API, shared by its synchronous requests and its submissions, the keys served in turn:
     * {@code http.maxConcurrentExecutions}, 0 meaning {@code sandbox.maxConcurrent}.
     */
    @Provides
    @LazySingleton
    FairPlaces places(HttpConfig http, CodeAgentConfig config) {
        int places = http.maxConcurrentExecutions() > 0 ? http.maxConcurrentExecutions() : config.sandbox().maxConcurrent();
        return new FairPlaces(places, http.maxQueuedExecutions(), http.executionQueueWait(), "http.maxQueuedExecutions",
                "http.executionQueueWait");
    }

    @Provides
    @LazySingleton
    ExecutionGate executions(ExecuteCode executeCode, Sandbox sandbox, FairPlaces places, SubmitExecutions submissions,
            ApiMetrics metrics) {
        return new ExecutionGate(executeCode, sandbox.languages(), places, submissions, metrics);
    }

    /** Callbacks of submissions: to the hosts {@code http.callbackHosts} allows, tried again 1, 2, 4 and 8 s later. */
    @Provides
    @LazySingleton
    Callbacks callbacks(HttpConfig http, Closer closer) {
        return closer.register(new Callbacks(http, Duration.ofSeconds(1)));
    }

    /** Asynchronous and batched executions, their results kept in the store's {@link ExecutionResults}. */
    @Provides
    @LazySingleton
    SubmitExecutions submissions(HttpConfig http, ExecuteCode executeCode, FairPlaces places, ExecutionResults results,
            ApiMetrics metrics, Clock clock, Closer closer) {
        return closer.register(new SubmitExecutions(executeCode, places, results, http.maxPendingSubmissions(),
                http.resultsKeep(), clock, e -> metrics.execution(e, "submitted")));
    }

    /**
     * The runs, after the crash recovery every door does when it starts (runs left RUNNING by a process that is gone
     * end ERROR). On the workers' queue ({@code sandbox.kind: queue}) the scheduler only answers for runs: the agent
     * loop is never built here.
     */
    @Provides
    @LazySingleton
    RunService runs(HttpConfig http, RunPlacement placement, RunLog runLog, Optional<WorkQueue> sharedQueue, ApiMetrics metrics,
            Clock clock) {
        int interrupted = new RecoverInterruptedRuns(runLog).recover();
        if (interrupted > 0) {
            log.info("marked {} runs left unfinished by an earlier process as ERROR", interrupted);
        }
        RunScheduler scheduler = new RunScheduler(placement.agentLoop(), runLog, http.maxConcurrentRuns(), clock);
        // over a shared store the queue is where runs worked by other processes are followed and cancelled, whether or
        // not this door sends its own runs there
        return new RunService(scheduler, runLog, metrics, sharedQueue.orElse(null), placement.queue().isPresent(),
                http.runsPerKey());
    }

    /**
     * Evaluations sent to the server, judged on its sandbox with the configured limits, kept where the store keeps them
     * (the application's {@code WorkModule} decides: the SQL stores' table, else memory); stopped when it closes.
     */
    @Provides
    @LazySingleton
    SubmitEvaluations evaluations(ExecuteCode executeCode, EvaluationLog log, CodeAgentConfig config, Clock clock,
            Closer closer) {
        return closer.register(new SubmitEvaluations(executeCode, log,
                config.limits().toResourceLimits(), SubmitEvaluations.WORKERS, clock));
    }

    @Provides
    @LazySingleton
    EventStreams streams(HttpConfig http) {
        return new EventStreams(eventStreamPlaces(http), Duration.ofSeconds(15));
    }

    /** Each open event stream holds a request thread: never let them take more than half the pool. */
    private static int eventStreamPlaces(HttpConfig http) {
        int cap = JettyTuning.MAX_THREADS / 2;
        if (http.maxEventStreams() > cap) {
            log.warn("http.maxEventStreams={} would tie up the request threads; using {}", http.maxEventStreams(), cap);
            return cap;
        }
        return http.maxEventStreams();
    }

    /** The run log is asked for per check: a store that cannot be opened makes the server not ready, not unable to start. */
    @Provides
    @LazySingleton
    HealthCheck health(ExecuteCode executeCode, Sandbox sandbox, Provider<RunLog> runLog, Closer closer) {
        return closer.register(new HealthCheck(executeCode, sandbox, runLog::get));
    }

    @Provides
    @LazySingleton
    PistonApi piston(ExecuteCode executeCode, Sandbox sandbox, CodeAgentConfig config) {
        return new PistonApi(executeCode, sandbox.languages(), config);
    }

    @Provides
    @LazySingleton
    PistonConnect connect(ExecutionGate executions, ExecuteCode executeCode, PistonApi piston, RequestGuard guard,
            HttpConfig http, Closer closer) {
        return closer.register(new PistonConnect(executions, executeCode, piston, guard, http.maxBodyBytes().bytes()));
    }

    /**
     * The server's sessions: a registry of its own, whose places are the http settings (one owner per key) rather than
     * the one-owner default the composition gives the command line and the kernel; on the queue tier there is no
     * session sandbox, so every open is refused in one line.
     */
    @Provides
    @LazySingleton
    SessionRoutes sessions(Optional<SessionSandbox> tier, Sandbox sandbox, JsonBodies bodies, EventStreams streams,
            HttpConfig http, Closer closer) {
        OpenSessions registry = closer.register(new OpenSessions(tier, sandbox.tier(),
                new SessionPlaces(http.maxSessions(), http.sessionsPerKey(), http.sessionPool()), Clock.systemUTC()));
        return closer.register(new SessionRoutes(registry, bodies, streams, http.sessionOutputBudget().bytes()));
    }
}
