package dev.codeagent.sandbox.docker;

import static dev.codeagent.sandbox.docker.DockerExecutions.elapsed;

import com.github.dockerjava.api.model.Info;
import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.execution.UnsupportedLanguageException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.kit.sandbox.SeccompFilter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The docker tier: every program runs once in its own hardened, single-use container — no network,
 * all capabilities dropped, {@code no-new-privileges}, uid 65534, read-only root with size-capped
 * tmpfs work dir and /tmp, memory limit with swap equal to it, CPU quota, pids limit, rlimits, no log
 * driver, a supervisor of its own as the container's init (pid 1) — which is removed afterwards.
 *
 * <p>A warm pool of started containers, each with a bootstrap waiting for its program (see
 * {@link Bootstrap}), spares executions the create/start cost; it refills in the background. Output
 * is read through the attach stream into capped buffers. Engine calls are bounded in time and
 * guarded by a circuit breaker: an engine that stops mid-run ends that run as
 * {@link Outcome#SANDBOX_ERROR}, runs while it is down fail fast, and the tier recovers by itself
 * when it returns.
 *
 * <p>Its parts: {@link DockerExecutions} runs programs, {@link DockerSessions} holds sessions,
 * {@link StrayContainers} removes what an earlier process left, {@link IsolationProbe} asks the engine what it enforces.
 */
public final class DockerSandbox implements Sandbox, SessionSandbox {

    /** The tier name and config key. */
    public static final String TIER = "docker";
    /** Label on every container codeagent makes ({@code dev.codeagent.sandbox=true}). */
    public static final String LABEL_SANDBOX = DockerContainers.LABEL_SANDBOX;
    /** Label naming the sandbox instance that made a container (see {@link #ownerId()}). */
    public static final String LABEL_OWNER = DockerContainers.LABEL_OWNER;

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration BREAKER_OPEN = Duration.ofSeconds(2);

    private final DockerEngine engine;
    private final String image;
    private final double cpus;
    private final long tmpfsBytes;
    private final String ownerId;
    private final Map<String, String> labels;
    private final Isolation isolation;
    private final String runtime;
    private final boolean seccomp;
    private final Set<Language> languages;
    private final ContainerKeeper keeper;
    private final DockerExecutions executions;
    private final DockerSessions sessions;
    private final boolean reuseForBatches;
    /** Whether reusable containers fork their judged jobs' interpreters from warm ones (zygote.py). */
    private final boolean zygotes;
    private volatile boolean closed;

    private DockerSandbox(DockerEngine engine, DockerSandboxConfig config, ResourceLimits poolLimits, ResourceLimits compileLimits,
            IsolationMode mode) {
        this.engine = engine;
        this.image = config.image();
        this.cpus = config.cpus();
        this.tmpfsBytes = config.tmpfsSize().bytes();
        this.ownerId = UUID.randomUUID().toString();
        this.labels = Map.of(LABEL_SANDBOX, "true", LABEL_OWNER, ownerId, DockerContainers.LABEL_PROCESS, StrayContainers.processTag());
        try {
            engine.ping();
        } catch (EngineFailure e) {
            throw new SandboxUnavailableException("no Docker engine is reachable at " + engine.host()
                    + "; start one (sudo systemctl start docker, or: dockerd &) or point DOCKER_HOST / sandbox.docker.host at one", e);
        }
        Optional<Map<String, String>> imageLabels;
        Info info;
        try {
            imageLabels = engine.imageLabels(image);
            info = engine.info();
        } catch (EngineFailure e) {
            throw new SandboxUnavailableException(e.getMessage(), e);
        }
        if (imageLabels.isEmpty()) {
            throw new SandboxUnavailableException("the sandbox image " + image + " is not in the Docker engine at " + engine.host()
                    + "; build it with scripts/build-sandbox-image.sh (or docker pull an image with python3, e.g. python:3.12-slim,"
                    + " and set sandbox.docker.image)");
        }
        this.languages = languagesOf(imageLabels.get());
        boolean kernel = "ipykernel".equals(imageLabels.get().get(LABEL_KERNEL));
        this.runtime = config.runtime();
        this.reuseForBatches = config.reusesForBatches();
        this.zygotes = config.zygotes();
        Optional<List<String>> runtimeArgs = IsolationProbe.runtimeArgs(info.getRawValues(), runtime);
        if (runtimeArgs.isEmpty()) {
            throw new SandboxUnavailableException("sandbox.docker.runtime is " + runtime + " but the Docker engine at "
                    + engine.host() + " has no such runtime; " + (config.gvisor() ? IsolationProbe.REGISTER_RUNSC : "use runc"));
        }
        byte[] programFilter = config.gvisor() ? SeccompFilter.forHost().map(SeccompFilter::bytes).orElse(null) : null;
        this.isolation = IsolationProbe.isolationOf(info, config.gvisor(), runtimeArgs.get(), programFilter != null);
        // the engine's profile goes on the container where the engine applies it (on runsc only with --oci-seccomp)
        this.seccomp = isolation.has(IsolationFeature.SECCOMP_DEFAULT);
        if (mode == IsolationMode.STRICT && !isolation.missing().isEmpty()) {
            throw new SandboxUnavailableException("strict isolation: the Docker engine at " + engine.host()
                    + " cannot enforce " + String.join(", ", isolation.sortedMissing())
                    + "; to run without them anyway: --set sandbox.isolation=best-effort (or CODEAGENT_SANDBOX_ISOLATION)");
        }
        new StrayContainers(engine).removeStrays();
        // compile stages get a pool of their own (half the run pool, at least one) once the first one comes
        this.keeper = new ContainerKeeper(engine, spec(poolLimits), config.poolSize(), compileLimits == null ? null
                : spec(compileLimits), (config.poolSize() + 1) / 2, ownerId);
        this.executions = new DockerExecutions(engine, keeper, isolation, tmpfsBytes, programFilter, config.gvisor(), config.zygotes());
        this.sessions = new DockerSessions(engine, image, cpus, labels, runtime, seccomp, kernel);
    }

    private DockerContainers.Spec spec(ResourceLimits limits) {
        return DockerContainers.Spec.of(image, limits, cpus, tmpfsBytes, labels).on(runtime, seccomp);
    }

    /**
     * Connects to the engine and starts the pool.
     *
     * @param config the docker tier's settings
     * @param poolLimits the limits pooled containers are made for; a request with another memory or
     *     process limit gets a fresh container instead
     * @param mode {@code STRICT} refuses to start unless every isolation feature is in force
     * @throws SandboxUnavailableException when no engine answers, the image is missing, or strict
     *     isolation cannot be had; the message is one line saying what to do
     */
    public static DockerSandbox create(DockerSandboxConfig config, ResourceLimits poolLimits, IsolationMode mode) {
        return create(config, poolLimits, null, mode);
    }

    /**
     * As {@link #create(DockerSandboxConfig, ResourceLimits, IsolationMode)}, with a second pool for compile stages.
     *
     * @param compileLimits the limits compile stages run with by default (the executor's compile limits): containers
     *     for them are kept warm (half the run pool's size, at least one; none without a run pool) from the first
     *     compile stage on; null: none are
     */
    public static DockerSandbox create(DockerSandboxConfig config, ResourceLimits poolLimits, ResourceLimits compileLimits,
            IsolationMode mode) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(poolLimits, "poolLimits");
        Objects.requireNonNull(mode, "mode");
        DockerEngine engine;
        try {
            engine = new DockerEngine(config.host(), CALL_TIMEOUT, BREAKER_OPEN);
        } catch (EngineFailure e) {
            throw new SandboxUnavailableException(e.getMessage(), e);
        }
        try {
            return new DockerSandbox(engine, config, poolLimits, compileLimits, mode);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    /** A sandbox with the default pool limits, best-effort isolation. */
    public static DockerSandbox create(DockerSandboxConfig config) {
        return create(config, ResourceLimits.defaults(), IsolationMode.BEST_EFFORT);
    }

    @Override
    public String tier() {
        return TIER;
    }

    @Override
    public Set<Language> languages() {
        return languages;
    }

    /** Label by which an image says what it can run besides Python ({@code python,bash}). */
    public static final String LABEL_LANGUAGES = "dev.codeagent.languages";

    /**
     * Python always (the bootstrap needs it); more when the image's {@link #LABEL_LANGUAGES} label lists them. A
     * compiled language counts only with Bash beside it: its stages are Bash scripts.
     */
    static Set<Language> languagesOf(Map<String, String> imageLabels) {
        Set<Language> result = java.util.EnumSet.of(Language.PYTHON);
        String listed = imageLabels.get(LABEL_LANGUAGES);
        if (listed != null) {
            for (String id : listed.split(",")) {
                Language.fromId(id).ifPresent(result::add);
            }
        }
        if (!result.contains(Language.BASH)) {
            result.removeIf(l -> LanguageProfile.of(l).compiled());
        }
        return Set.copyOf(result);
    }

    @Override
    public Isolation isolation() {
        return isolation;
    }

    /** The id in the {@link #LABEL_OWNER} label of every container this sandbox makes. */
    public String ownerId() {
        return ownerId;
    }

    /** The engine this sandbox talks to, e.g. {@code unix:///var/run/docker.sock}. */
    public String engineHost() {
        return engine.host();
    }

    /** Started containers waiting in the pool now. */
    public int warmContainers() {
        return keeper.warm();
    }

    /**
     * Waits until the pool is full and no removal is pending (for benchmarks and tests that want to
     * measure or inspect a quiet sandbox).
     *
     * @return whether it settled in time
     */
    public boolean awaitSettled(Duration timeout) {
        try {
            return keeper.awaitSettled(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public Execution execute(ExecutionRequest request) {
        refuseUnrunnable(request);
        return run(request, null);
    }

    /**
     * Runs the program as {@link #execute} does, in a container of the pool or a fresh one, on a thread of its own; its
     * stdin, the end of it and signals go to the container's supervisor as frames after the payload (see
     * {@link LiveDocker}), its output comes through the same attach stream as it is written.
     */
    @Override
    public LiveExecution start(ExecutionRequest request, LiveExecution.Listener listener) {
        refuseUnrunnable(request);
        Objects.requireNonNull(listener, "listener");
        if (request.judged()) {
            throw new IllegalArgumentException("a judged request cannot run live");
        }
        if (closed) {
            throw new ExecutionCancelledException("the docker sandbox is closed");
        }
        LiveDocker live = new LiveDocker(listener, request.limits().maxOutputBytes());
        return live.start(() -> run(request, live));
    }

    private void refuseUnrunnable(ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        if (!languages().contains(request.program().language())) {
            throw new UnsupportedLanguageException(request.program().language(), TIER, languages());
        }
        if (LanguageProfile.of(request.program().language()).compiled()) {
            throw CompilingSandbox.refusal(request.program().language(), TIER);
        }
    }

    private Execution run(ExecutionRequest request, LiveDocker live) {
        long t0 = System.nanoTime();
        if (closed) {
            return Execution.sandboxError("the docker sandbox is closed", elapsed(t0), isolation);
        }
        ResourceLimits limits = request.limits();
        DockerContainers.Spec spec = spec(limits);
        // a batch's judged jobs (an evaluation's samples) share a few containers that clean up after each job: a
        // container's creation costs several times a sample's judging
        String batchKey = null;
        String id;
        if (reuseForBatches && live == null && request.judged() && request.judging().batch() != null) {
            spec = spec.forBatches(zygotes);
            batchKey = request.judging().batch() + "|" + spec.key();
            id = keeper.takeForBatch(batchKey);
        } else {
            id = keeper.takeWarm(spec.key());
        }
        if (id == null) {
            try {
                id = keeper.createAndStart(spec);
            } catch (EngineFailure e) {
                keeper.engineTrouble();
                return Execution.sandboxError(e.getMessage(), elapsed(t0), isolation);
            }
        }
        if (Thread.interrupted()) {
            keeper.release(id, true);
            Thread.currentThread().interrupt();
            throw new ExecutionCancelledException("the execution was cancelled before it started");
        }
        return executions.run(id, request, t0, live, batchKey);
    }

    /** The image label that says whether the image has a kernel for sessions. */
    static final String LABEL_KERNEL = "dev.codeagent.kernel";

    /**
     * Opens a session in a container of its own: the kernel bridge is its init, as uid 65534 with no capability,
     * no network, a read-only root and size-capped tmpfs /work and /tmp, under the tier's seccomp profile (and
     * gVisor when configured); the container's memory, process and CPU limits are the session's for its whole
     * life, its CPU budget read from the container's group. Closing the session removes the container.
     *
     * @throws SandboxUnavailableException when the image has no kernel (built without ipykernel), the engine
     *     fails, or the kernel does not start
     */
    @Override
    public Session open(SessionLimits limits) {
        Objects.requireNonNull(limits, "limits");
        if (closed) {
            throw new SandboxUnavailableException("the docker sandbox is closed");
        }
        return sessions.open(limits);
    }

    /** Removes every container this sandbox made (pooled, in use, awaiting removal, sessions'); runs in flight end. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sessions.close();
        keeper.close();
        engine.close();
    }
}
