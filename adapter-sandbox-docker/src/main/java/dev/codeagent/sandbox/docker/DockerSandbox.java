package dev.codeagent.sandbox.docker;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.api.model.Info;
import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.kit.sandbox.JudgeReportJson;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.OutcomeClassifier;
import dev.codeagent.domain.execution.OutcomeClassifier.Enforced;
import dev.codeagent.domain.execution.OutcomeClassifier.Termination;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.execution.UnsupportedLanguageException;
import dev.codeagent.kit.sandbox.SeccompFilter;
import dev.codeagent.kit.sandbox.BridgeSession;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class DockerSandbox implements Sandbox, SessionSandbox {

    private static final Logger log = LoggerFactory.getLogger(DockerSandbox.class);
    private static final OutcomeClassifier CLASSIFIER = new OutcomeClassifier();

    /** The tier name and config key. */
    public static final String TIER = "docker";
    /** Label on every container codeagent makes ({@code dev.codeagent.sandbox=true}). */
    public static final String LABEL_SANDBOX = DockerContainers.LABEL_SANDBOX;
    /** Label naming the sandbox instance that made a container (see {@link #ownerId()}). */
    public static final String LABEL_OWNER = DockerContainers.LABEL_OWNER;

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration BREAKER_OPEN = Duration.ofSeconds(2);
    /** How long after a kill the stream may take to deliver its tail. */
    private static final long DRAIN_MILLIS = 2_000;
    /**
     * How long a container that ended without a report may take to show the engine's verdict on it. Under gVisor
     * the engine hears of the host's OOM kill from runsc's events, after the container's end; on a loaded host
     * 2 s was seen to be too short (the run was reported as a sandbox failure).
     */
    private static final long OOM_VERDICT_MILLIS = 2_000;
    private static final long GVISOR_OOM_VERDICT_MILLIS = 6_000;
    /**
     * How long a container may take from attach to starting the program, apart from the wall-clock limit
     * (which starts then): generous, since only a host under heavy load is this slow; passing it is a
     * {@link Outcome#SANDBOX_ERROR}, not the program's fault.
     */
    static final Duration START_UP = Duration.ofSeconds(30);

    private final DockerEngine engine;
    private final String image;
    private final double cpus;
    private final long tmpfsBytes;
    private final String ownerId;
    private final Map<String, String> labels;
    private final Isolation isolation;
    private final String runtime;
    private final boolean gvisor;
    private final boolean seccomp;
    /**
     * Under gVisor, where the engine's profile does not reach the program (runsc applies it only with --oci-seccomp,
     * which breaks select() in 0.0~20221219): codeagent's own filter, which the supervisor installs in the
     * program's process itself (gVisor's kernel runs seccomp filters). Null under runc, where the profile does it.
     */
    private final byte[] programFilter;
    private final Set<Language> languages;
    /** Whether the image has a session kernel (label {@value #LABEL_KERNEL} is ipykernel; see build-sandbox-image.sh). */
    private final boolean kernel;
    private final Set<DockerSessionChannel> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ContainerKeeper keeper;
    private volatile boolean closed;

    private DockerSandbox(DockerEngine engine, DockerSandboxConfig config, ResourceLimits poolLimits, IsolationMode mode) {
        this.engine = engine;
        this.image = config.image();
        this.cpus = config.cpus();
        this.tmpfsBytes = config.tmpfsSize().bytes();
        this.ownerId = UUID.randomUUID().toString();
        this.labels = Map.of(LABEL_SANDBOX, "true", LABEL_OWNER, ownerId, DockerContainers.LABEL_PROCESS, processTag());
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
        this.kernel = "ipykernel".equals(imageLabels.get().get(LABEL_KERNEL));
        this.runtime = config.runtime();
        this.gvisor = config.gvisor();
        Optional<List<String>> runtimeArgs = runtimeArgs(info.getRawValues(), runtime);
        if (runtimeArgs.isEmpty()) {
            throw new SandboxUnavailableException("sandbox.docker.runtime is " + runtime + " but the Docker engine at "
                    + engine.host() + " has no such runtime; " + (config.gvisor() ? REGISTER_RUNSC : "use runc"));
        }
        this.programFilter = config.gvisor() ? SeccompFilter.forHost().map(SeccompFilter::bytes).orElse(null) : null;
        this.isolation = isolationOf(info, config.gvisor(), runtimeArgs.get(), programFilter != null);
        // the engine's profile goes on the container where the engine applies it (on runsc only with --oci-seccomp)
        this.seccomp = isolation.has(IsolationFeature.SECCOMP_DEFAULT);
        if (mode == IsolationMode.STRICT && !isolation.missing().isEmpty()) {
            throw new SandboxUnavailableException("strict isolation: the Docker engine at " + engine.host()
                    + " cannot enforce " + String.join(", ", isolation.sortedMissing())
                    + "; to run without them anyway: --set sandbox.isolation=best-effort (or CODEAGENT_SANDBOX_ISOLATION)");
        }
        removeStrays();
        this.keeper = new ContainerKeeper(engine,
                spec(poolLimits), config.poolSize(), ownerId);
    }

    /** What to do when runsc is asked for and the engine does not have it: one line. */
    static final String REGISTER_RUNSC = "install gVisor (apt-get install runsc), add"
            + " {\"runtimes\":{\"runsc\":{\"path\":\"/usr/bin/runsc\",\"runtimeArgs\":[\"--network=none\"]}}}"
            + " to /etc/docker/daemon.json and reload the engine (sudo kill -HUP $(pidof dockerd)), or set sandbox.docker.runtime: runc";

    private DockerContainers.Spec spec(ResourceLimits limits) {
        return DockerContainers.Spec.of(image, limits, cpus, tmpfsBytes, labels).on(runtime, seccomp);
    }

    /** The arguments the engine runs {@code runtime} with, or empty when it has no runtime of that name. */
    @SuppressWarnings("unchecked")
    static Optional<List<String>> runtimeArgs(Map<String, Object> raw, String runtime) {
        Object runtimes = raw == null ? null : raw.get("Runtimes");
        if (!(runtimes instanceof Map)) {
            // an engine that does not list its runtimes: only its own can be assumed
            return DockerSandboxConfig.RUNC.equals(runtime) ? Optional.of(List.of()) : Optional.empty();
        }
        Object entry = ((Map<String, Object>) runtimes).get(runtime);
        if (!(entry instanceof Map)) {
            return Optional.empty();
        }
        Object args = ((Map<String, Object>) entry).get("runtimeArgs");
        return Optional.of(args instanceof List ? ((List<Object>) args).stream().map(String::valueOf).toList() : List.of());
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
            return new DockerSandbox(engine, config, poolLimits, mode);
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
        Objects.requireNonNull(request, "request");
        if (!languages().contains(request.program().language())) {
            throw new UnsupportedLanguageException(request.program().language(), TIER, languages());
        }
        if (LanguageProfile.of(request.program().language()).compiled()) {
            throw CompilingSandbox.refusal(request.program().language(), TIER);
        }
        long t0 = System.nanoTime();
        if (closed) {
            return Execution.sandboxError("the docker sandbox is closed", elapsed(t0), isolation);
        }
        ResourceLimits limits = request.limits();
        DockerContainers.Spec spec = spec(limits);
        String id = keeper.takeWarm(spec.key());
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
        return run(id, request, t0);
    }

    private Execution run(String id, ExecutionRequest request, long t0) {
        ResourceLimits limits = request.limits();
        Language language = request.program().language();
        String nonce = Bootstrap.newNonce();
        AttachSession session = new AttachSession(limits.maxOutputBytes(), nonce);
        // how the container goes when the run is over: removed now unless it already was, or the
        // program reported its end (then nothing of it runs any more and removal may trail)
        boolean removed = false;
        boolean removeNow = true;
        try {
            // the group's CPU time before the program: a pooled container's idle bootstrap (and under gVisor,
            // its kernel's boot) is not the program's
            GroupCpu meter = GroupCpu.of(id, engine);
            long cpuBefore = meter.nanos();
            long start = System.nanoTime();
            engine.attach(id, Bootstrap.payload(request, tmpfsBytes, nonce, programFilter), session);
            Watch watch = watch(session, meter, cpuBefore, limits, start);
            AttachSession.End end = watch.end();
            if (end == null) {
                // a limit passed: kill and remove, then keep what the stream still delivers
                Duration wall = elapsed(start);
                boolean killed = kill(id);
                removed = killed;
                session.drain(DRAIN_MILLIS);
                AttachSession.Captured out = session.snapshot();
                if (!killed) {
                    return sandboxError("a limit passed but the Docker engine did not kill the container", out, t0);
                }
                if (!session.started()) {
                    return sandboxError("the container did not start the program within " + START_UP.toSeconds()
                            + " s (the wall-clock limit starts when it does)", out, t0);
                }
                if (watch.cpu() != null) {
                    // the whole group went past the CPU-time limit: killed as RLIMIT_CPU's hard limit would have been
                    return classified(Termination.ended(language, null, OutcomeClassifier.SIGKILL, watch.cpu(),
                            out.stderr().text()), limits, out, wall, watch.cpu(), null);
                }
                return classified(Termination.enforced(language, Enforced.WALL_TIME, false, false, out.stderr().text()),
                        limits, out, wall, null, null);
            }
            if (end == AttachSession.End.OVERFLOW) {
                boolean killed = kill(id);
                removed = killed;
                AttachSession.Captured out = session.snapshot();
                Duration wall = elapsed(start);
                if (!killed) {
                    return sandboxError("the output went past its cap but the Docker engine did not kill the container", out, t0);
                }
                return classified(Termination.enforced(language, Enforced.OUTPUT, out.stdoutOverflowed(),
                        out.stderrOverflowed(), out.stderr().text()), limits, out, wall, null, null);
            }
            Duration wall = elapsed(start);
            AttachSession.Captured out = session.snapshot();
            if (end == AttachSession.End.FAILED) {
                engine.recordStreamFailure(session.failure() != null ? session.failure() : new EngineFailure("stream failed"));
                keeper.engineTrouble();
                return sandboxError("the connection to the Docker engine broke during the run: "
                        + (session.failure() == null ? "stream closed" : DockerEngine.describe(session.failure())), out, t0);
            }
            if (!session.started()) {
                keeper.engineTrouble();
                String stderr = out.stderr().text();
                String why = stderr.contains("codeagent-bootstrap:")
                        ? DockerEngine.oneLine(stderr.substring(stderr.indexOf("codeagent-bootstrap:")))
                        : session.ackBroken() ? "the container is not running the codeagent bootstrap"
                        : "the container stopped before the program started";
                return sandboxError(why, out, t0);
            }
            Bootstrap.Report report = session.report();
            if (end != AttachSession.End.REPORTED || report == null) {
                // the program cannot kill its supervisor (pid 1) by signal, but it can fill the container's
                // memory (tmpfs pages count) until the OOM killer takes the supervisor, which ends the container
                if (oomKilled(id)) {
                    return classified(Termination.enforced(language, Enforced.MEMORY, false, false, out.stderr().text()),
                            limits, out, wall, null, null);
                }
                // otherwise the engine stopped the container (if it is in trouble, the next call to it says so)
                return sandboxError("the container ended without its supervisor reporting how the program ended", out, t0);
            }
            // the bootstrap killed all the program left behind before reporting and exits now: removal can trail
            removeNow = false;
            Duration reported = Duration.ofNanos((long) (report.cpuSeconds() * 1e9));
            Duration cpu = groupCpu(meter, cpuBefore).orElse(reported);
            // a SIGXCPU is the limit's when CPU time measured outside the program reaches it; gVisor checks RLIMIT_CPU
            // against its own accounting, which the supervisor's rusage reads (pid 1's own pipe: the program cannot
            // write it) and which the host's group can trail by a third under load
            Duration judged = Integer.valueOf(OutcomeClassifier.SIGXCPU).equals(report.signal()) && reported.compareTo(cpu) > 0
                    ? reported : cpu;
            Long peak = report.maxRssBytes() > 0 ? report.maxRssBytes() : null;
            // a run whose group went past the CPU-time limit between two readings is over it all the same
            boolean overCpu = cpu.compareTo(limits.cpuTime()) > 0 && report.signal() == null;
            Termination facts = (overCpu
                    ? Termination.ended(language, null, OutcomeClassifier.SIGKILL, cpu, out.stderr().text())
                    : Termination.ended(language, report.exitCode(), report.signal(), judged, out.stderr().text()))
                    .withOomKilled(report.oomKills() > 0).withWritableBytes(tmpfsBytes);
            if (log.isTraceEnabled()) {
                log.trace("timing: to attach {} ms, ack {} ms, end {} ms", (start - t0) / 1e6,
                        (session.startedAtNanos() - start) / 1e6, wall.toNanos() / 1e6);
            }
            // a file can be no larger than the tmpfs that holds it
            Execution e = classified(facts, limits.withMaxFileBytes(Math.min(limits.maxFileBytes(), tmpfsBytes)), out, wall, cpu, peak);
            // the judge's line came over the supervisor's own pipe, never from the program's streams
            return report.judge() == null ? e : e.withJudgement(JudgeReportJson.parse(report.judge()).orElse(null));
        } catch (InterruptedException e) {
            removed = kill(id);
            session.close();
            Thread.currentThread().interrupt();
            throw new ExecutionCancelledException("the execution was cancelled; its container was removed");
        } catch (EngineFailure e) {
            keeper.engineTrouble();
            return sandboxError(e.getMessage(), session.snapshot(), t0);
        } finally {
            session.close();
            if (removed) {
                keeper.forget(id);
            } else {
                keeper.release(id, removeNow);
            }
        }
    }

    /** How the waiting for a run ended: with the stream's end, or (null) at a limit; the group's CPU time when that limit was CPU. */
    private record Watch(AttachSession.End end, Duration cpu) {
    }

    /**
     * Waits for the run to end while holding its limits: a start-up deadline until the supervisor says the
     * program started, the wall-clock limit from then on (so a loaded host's slow attach costs the program
     * nothing), and the CPU-time limit over the container's whole group, read every {@link GroupCpu#poll()}.
     */
    private static Watch watch(AttachSession session, GroupCpu meter, long cpuBefore, ResourceLimits limits, long start)
            throws InterruptedException {
        long wallNanos = limits.wallTime().toNanos();
        long startDeadline = start + START_UP.toNanos();
        long pollNanos = meter.poll().toNanos();
        long nextPoll = System.nanoTime() + pollNanos;
        while (true) {
            long now = System.nanoTime();
            long deadline = session.started() ? session.startedAtNanos() + wallNanos : startDeadline;
            if (now - deadline >= 0) {
                return new Watch(null, null);
            }
            AttachSession.End end = session.await(Math.min(deadline - now, Math.max(0, nextPoll - now)));
            if (end != null) {
                return new Watch(end, null);
            }
            if (System.nanoTime() - nextPoll >= 0) {
                Optional<Duration> cpu = groupCpu(meter, cpuBefore);
                if (cpu.isPresent() && cpu.get().compareTo(limits.cpuTime()) > 0) {
                    return new Watch(null, cpu.get());
                }
                nextPoll = System.nanoTime() + pollNanos;
            }
        }
    }

    /** The group's CPU time since {@code before}, when both readings were had. */
    private static Optional<Duration> groupCpu(GroupCpu meter, long before) {
        long now = before < 0 ? -1 : meter.nanos();
        return now < 0 ? Optional.empty() : Optional.of(Duration.ofNanos(Math.max(0, now - before)));
    }

    /**
     * Whether the engine saw the out-of-memory killer strike in the container; false when it cannot say.
     * The engine hears of the OOM kill before it hears of the container's end, so once it shows the
     * container stopped its OOM flag is final (with runc; under runsc it can come after); the stream may end
     * a little before that.
     */
    private boolean oomKilled(String id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMillis(gvisor ? GVISOR_OOM_VERDICT_MILLIS : OOM_VERDICT_MILLIS).toNanos();
        try {
            while (true) {
                InspectContainerResponse.ContainerState state = engine.inspect(id).getState();
                if (Boolean.TRUE.equals(state.getOOMKilled())) {
                    return true;
                }
                boolean ended = !Boolean.TRUE.equals(state.getRunning());
                if (ended && engine.oomEventSince(id, startedAt(state))) {
                    return true;
                }
                // under gVisor the engine may hear of the OOM kill after the container's end: wait it out
                if (!gvisor && ended || System.nanoTime() > deadline) {
                    log.warn("docker sandbox: container {} ended without a report and no OOM kill (running {}, exit {},"
                            + " error '{}')", id, state.getRunning(), state.getExitCodeLong(), state.getError());
                    return false;
                }
                Thread.sleep(ended ? 250 : 20);
            }
        } catch (EngineFailure | NotFoundException e) {
            return false;
        }
    }

    /** When the container started, in epoch seconds (a minute ago when the engine does not say). */
    private static long startedAt(InspectContainerResponse.ContainerState state) {
        try {
            return java.time.Instant.parse(state.getStartedAt()).getEpochSecond() - 1;
        } catch (RuntimeException e) {
            return java.time.Instant.now().getEpochSecond() - 60;
        }
    }

    /** Kills and removes the container now; false when the engine would not. */
    private boolean kill(String id) {
        try {
            return engine.remove(id);
        } catch (EngineFailure e) {
            keeper.engineTrouble();
            return false;
        }
    }

    private Execution classified(Termination facts, ResourceLimits limits, AttachSession.Captured out, Duration wall,
            Duration cpu, Long peak) {
        OutcomeClassifier.Classification c = CLASSIFIER.classify(facts, limits);
        return new Execution(c.outcome(), facts.exitCode(), facts.signal(), out.stdout(), out.stderr(), wall, cpu, peak,
                c.detail(), isolation).withOutput(out.output());
    }

    private Execution sandboxError(String detail, AttachSession.Captured out, long t0) {
        log.debug("docker sandbox error: {}", detail);
        return new Execution(Outcome.SANDBOX_ERROR, null, null, out.stdout(), out.stderr(), elapsed(t0), null, null,
                detail, isolation).withOutput(out.output());
    }

    private static Duration elapsed(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    /** The image label that says whether the image has a kernel for sessions. */
    static final String LABEL_KERNEL = "dev.codeagent.kernel";
    private static final java.security.SecureRandom SESSION_IDS = new java.security.SecureRandom();

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
        if (!kernel) {
            throw new SandboxUnavailableException("the sandbox image " + image + " has no kernel for sessions; rebuild it "
                    + "with scripts/build-sandbox-image.sh on a host with python3-ipykernel and python3-jupyter-client");
        }
        DockerContainers.Spec spec = new DockerContainers.Spec(image, limits.memoryBytes(), limits.maxProcesses(), cpus,
                limits.diskBytes(), labels, DockerContainers.DEFAULT_IDLE, null, true).on(runtime, seccomp);
        String id;
        try {
            id = engine.createSession(spec, List.of("/usr/bin/python3", "-I", "-c", BridgeSession.script()));
        } catch (EngineFailure e) {
            throw new SandboxUnavailableException("could not create a session's container: " + e.getMessage(), e);
        }
        String container = id;
        DockerSessionChannel[] self = new DockerSessionChannel[1];
        DockerSessionChannel channel = new DockerSessionChannel(() -> {
            sessions.remove(self[0]);
            try {
                engine.remove(container);
            } catch (RuntimeException e) {
                log.warn("docker sandbox: could not remove session container {}: {}", container, e.getMessage());
            }
        });
        self[0] = channel;
        sessions.add(channel);
        try {
            // attached before it starts: nothing the bridge says is missed
            engine.attach(id, channel.containerStdin(), channel);
            engine.start(id);
        } catch (RuntimeException e) {
            channel.destroy();
            throw new SandboxUnavailableException("could not start a session's container: " + e.getMessage(), e);
        }
        watchCpu(channel, GroupCpu.of(id, engine), limits);
        byte[] sid = new byte[16];
        SESSION_IDS.nextBytes(sid);
        // a kernel that does not start destroys the channel, and with it the container
        return BridgeSession.start("s-" + java.util.HexFormat.of().formatHex(sid), limits, channel);
    }

    /** The session's CPU budget over every process it ever ran: the container's group, polled. */
    private static void watchCpu(DockerSessionChannel channel, GroupCpu meter, SessionLimits limits) {
        long budget = limits.cpuBudget().toNanos();
        Thread t = new Thread(() -> {
            while (!channel.destroyed()) {
                long used = meter.nanos();
                if (used > budget) {
                    channel.ended("the session used its CPU budget of " + limits.cpuBudget().toSeconds() + "s");
                    return;
                }
                try {
                    Thread.sleep(Math.max(100, meter.poll().toMillis()));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "docker-session-cpu");
        t.setDaemon(true);
        t.start();
    }

    /** Removes every container this sandbox made (pooled, in use, awaiting removal, sessions'); runs in flight end. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (DockerSessionChannel s : List.copyOf(sessions)) {
            s.destroy();
        }
        sessions.clear();
        keeper.close();
        engine.close();
    }

    static Isolation isolationOf(Info info, boolean gvisor, List<String> runtimeArgs) {
        return isolationOf(info, gvisor, runtimeArgs, false);
    }

    /** @param ownFilter whether the supervisor installs codeagent's filter in the program's process itself (gVisor) */
    static Isolation isolationOf(Info info, boolean gvisor, List<String> runtimeArgs, boolean ownFilter) {
        Set<IsolationFeature> features = EnumSet.of(IsolationFeature.CONTAINER, IsolationFeature.PID_NAMESPACE,
                IsolationFeature.MOUNT_NAMESPACE, IsolationFeature.IPC_NAMESPACE, IsolationFeature.UTS_NAMESPACE,
                IsolationFeature.NETWORK_NONE, IsolationFeature.FS_VIEW, IsolationFeature.CAP_DROP_ALL,
                IsolationFeature.NO_NEW_PRIVILEGES, IsolationFeature.UNPRIVILEGED_UID, IsolationFeature.READ_ONLY_ROOT,
                IsolationFeature.TMPFS_SIZE_CAP, IsolationFeature.RLIMITS, IsolationFeature.INIT,
                // the run's CPU time is its container's group's, read from the cgroupfs or the engine (GroupCpu)
                IsolationFeature.CGROUP_CPU);
        Set<IsolationFeature> missing = EnumSet.noneOf(IsolationFeature.class);
        (Boolean.TRUE.equals(info.getMemoryLimit()) && Boolean.TRUE.equals(info.getSwapLimit()) ? features : missing)
                .add(IsolationFeature.CGROUP_MEMORY);
        List<String> security = Optional.ofNullable(info.getSecurityOptions()).orElse(List.of());
        // codeagent's profile (SeccompProfile) contains Docker's default; gVisor applies it only with --oci-seccomp,
        // which in runsc 0.0~20221219 breaks select() (EPERM under any profile): .ci/run does not set it
        boolean seccomp = security.stream().anyMatch(s -> s.contains("name=seccomp"))
                && (!gvisor || runtimeArgs.stream().anyMatch(a -> a.matches("--?oci-seccomp(=true)?")));
        (seccomp ? features : missing).add(IsolationFeature.SECCOMP_DEFAULT);
        (seccomp || ownFilter ? features : missing).add(IsolationFeature.SECCOMP);
        if (gvisor) {
            features.add(IsolationFeature.GVISOR);
        }
        if (security.stream().anyMatch(s -> s.contains("name=apparmor"))) {
            features.add(IsolationFeature.APPARMOR);
        }
        if (security.stream().anyMatch(s -> s.contains("name=userns"))) {
            features.add(IsolationFeature.USERNS);
        }
        // the pids and CPU controllers: docker-java's Info lacks their flags, so ask the raw map. The CFS
        // quota caps cores, not CPU time summed over the run's processes, so it is cpu-quota, not cgroup-cpu.
        Map<String, Object> raw = info.getRawValues();
        (raw == null || !Boolean.FALSE.equals(raw.get("PidsLimit")) ? features : missing).add(IsolationFeature.CGROUP_PIDS);
        (raw == null || !Boolean.FALSE.equals(raw.get("CpuCfsQuota")) ? features : missing).add(IsolationFeature.CPU_QUOTA);
        return Isolation.of(TIER, features, missing);
    }

    /** Removes containers left by an earlier codeagent process on this host that is no longer alive. */
    private void removeStrays() {
        List<Container> ours;
        try {
            ours = engine.listByLabels(Map.of(LABEL_SANDBOX, "true"));
        } catch (EngineFailure e) {
            log.warn("cannot look for stray sandbox containers: {}", e.getMessage());
            return;
        }
        String host = hostName();
        int removed = 0;
        for (Container c : ours) {
            String tag = c.getLabels() == null ? null : c.getLabels().get(DockerContainers.LABEL_PROCESS);
            if (tag == null || !isStray(tag, host)) {
                continue;
            }
            try {
                engine.remove(c.getId());
                removed++;
            } catch (EngineFailure e) {
                log.warn("cannot remove stray sandbox container {}: {}", ContainerKeeper.shortId(c.getId()), e.getMessage());
            }
        }
        if (removed > 0) {
            log.info("removed {} stray sandbox container(s) left by an earlier run", removed);
        }
    }

    /** A container is a stray when the process that made it, on this host, is gone (or its pid was reused). */
    static boolean isStray(String processTag, String thisHost) {
        String[] parts = processTag.split("\\|");
        if (parts.length != 3 || !parts[0].equals(thisHost)) {
            return false;
        }
        long pid;
        try {
            pid = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return false;
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return true;
        }
        String started = p.get().info().startInstant().map(i -> Long.toString(i.toEpochMilli())).orElse("");
        return !started.isEmpty() && !started.equals(parts[2]);
    }

    /** host|pid|start-millis of this JVM, the value of {@code dev.codeagent.process} on its containers. */
    static String processTag() {
        return ProcessTag.VALUE;
    }

    private static final class ProcessTag {
        static final String VALUE = compute();

        private static String compute() {
            ProcessHandle self = ProcessHandle.current();
            String started = self.info().startInstant().map(Instant::toEpochMilli).map(String::valueOf).orElse("");
            return hostName() + "|" + self.pid() + "|" + started;
        }
    }

    /** The kernel's host name; no DNS look-up, which can stall on a badly configured host. */
    private static String hostName() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or /proc hidden: ask the JDK instead
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return Optional.ofNullable(System.getenv("HOSTNAME")).orElse("localhost");
        }
    }
}
