package dev.codeagent.sandbox.process;

import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.ProcessSandboxConfig;
import dev.codeagent.application.config.SandboxConfig.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.execution.UnsupportedLanguageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process tier: each execution is a local child process started through Apache Commons Exec, in a
 * fresh private work directory, with an explicit minimal environment and rlimits (CPU, address space,
 * processes, file size, open files, no core dumps).
 *
 * <p>Where the host allows it (root with bubblewrap and user namespaces) every execution also gets its
 * own unprivileged uid from a pool and runs under bubblewrap in its own user, pid, network, mount, ipc
 * and uts namespaces, seeing only a read-only /usr, a fresh /proc, a minimal /dev and size-capped
 * private tmpfs mounts for /work (its sources bound in) and /tmp. On a poorer host it falls back to
 * util-linux {@code unshare} or to plain rlimits, and {@link #isolation()} says what is missing. The host
 * is probed once, at construction, by running a tiny command through the chosen wrapping.
 *
 * <p>Setting up namespaces costs more than an interpreter's start on a busy host, so once a sandbox has
 * run twice it keeps one single-use sandbox started ahead (see {@link WarmPool}; only while other cores
 * are idle): the next execution's files, limits and command are handed to it and it becomes the program.
 * Nothing is shared between executions either way.
 *
 * <p>The wall-clock limit, an output cap, {@link #close()} or an interrupt of the calling thread kill the
 * whole tree with SIGKILL (with a pid namespace the kernel takes every process in it; with an own uid,
 * every process of that uid is swept as well) and {@link #execute} returns only when nothing of the run
 * is left.
 */
public final class ProcessSandbox implements Sandbox {

    public static final String TIER = "process";
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    private static final Logger log = LoggerFactory.getLogger(ProcessSandbox.class);
    private final ProcessSandboxConfig config;
    private final HostTools tools;
    private final Interpreters interpreters;
    private final Path workRoot;
    private final CommandPlan plan;
    private final Isolation isolation;
    private final Isolation isolationWithNetwork;
    private final UidPool uids;
    /** The execute-only copy of GNU time the sandbox's pid 1 runs from (see {@link ExecuteOnlyCopy}), or null. */
    private final Path privateTime;
    private final Killer killer;
    private final ExecutorService threads;
    private final WarmPool warm;
    private final Path warmRoot;
    private final java.util.concurrent.atomic.AtomicLong executions = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong preStartedExecutions = new java.util.concurrent.atomic.AtomicLong();
    private final Set<Run> active = ConcurrentHashMap.newKeySet();
    private Thread shutdownHook;
    private volatile boolean closed;

    /** How many sandboxes are kept pre-started by default (see {@link #ProcessSandbox(ProcessSandboxConfig, IsolationMode, int)}). */
    public static final int DEFAULT_PRE_STARTED = 1;

    /**
     * @throws SandboxUnavailableException when {@code mode} is strict and the host lacks an isolation
     *     feature, or a configured interpreter is not usable
     */
    public ProcessSandbox(ProcessSandboxConfig config, IsolationMode mode) {
        this(config, mode, DEFAULT_PRE_STARTED);
    }

    /**
     * @param preStarted how many single-use sandboxes to keep started ahead of need once the sandbox has
     *     run twice (0: start every execution's sandbox when it comes); only with bubblewrap
     * @throws SandboxUnavailableException when {@code mode} is strict and the host lacks an isolation
     *     feature, or a configured interpreter is not usable
     */
    public ProcessSandbox(ProcessSandboxConfig config, IsolationMode mode, int preStarted) {
        this(config, mode, HostTools.detect(), preStarted);
    }

    /** The sandbox the config describes ({@code sandbox.process}, {@code sandbox.isolation}). */
    public static ProcessSandbox create(CodeAgentConfig config) {
        return new ProcessSandbox(config.sandbox().process(), config.sandbox().isolation());
    }

    ProcessSandbox(ProcessSandboxConfig config, IsolationMode mode, HostTools tools) {
        this(config, mode, tools, DEFAULT_PRE_STARTED);
    }

    ProcessSandbox(ProcessSandboxConfig config, IsolationMode mode, HostTools tools, int preStarted) {
        if (preStarted < 0) {
            throw new IllegalArgumentException("preStarted must not be negative, was " + preStarted);
        }
        this.config = Objects.requireNonNull(config, "config");
        Objects.requireNonNull(mode, "mode");
        this.tools = tools;
        this.interpreters = Interpreters.resolve(config);
        if (interpreters.all().isEmpty()) {
            throw new SandboxUnavailableException("the process sandbox found no interpreter: install python3 or set "
                    + "sandbox.process.python to the interpreter binary");
        }
        this.workRoot = workRoot(config);
        this.threads = Executors.newCachedThreadPool(daemonThreads());
        UidPool pool = null;
        if (tools.root() && tools.setpriv() != null) {
            pool = new UidPool(UidPool.hostLockDir(), ForeignUids.load()::taken);
        }
        this.uids = pool;
        if (pool != null) {
            requireSearchable(workRoot);
            // before this sandbox claims any uid, so that a leftover of a uid it is about to claim is seen as one
            removeLeftovers(workRoot);
        }
        this.privateTime = pool != null && tools.bwrap() != null && tools.time() != null
                ? ExecuteOnlyCopy.of(tools.time(), workRoot).orElse(null) : null;
        if (pool != null && tools.bwrap() != null && tools.time() != null && privateTime == null) {
            log.warn("process sandbox: could not make an execute-only copy of {} in {}; the program could ptrace "
                    + "GNU time, which runs as its uid without its rlimits", tools.time(), workRoot);
        }
        Chosen chosen = choose(mode);
        this.plan = chosen.plan;
        Set<IsolationFeature> missing = new LinkedHashSet<>(IsolationProbe.ALL_FEATURES);
        missing.removeAll(chosen.features);
        if (mode == IsolationMode.STRICT && !missing.isEmpty()) {
            close();
            throw new SandboxUnavailableException("sandbox.isolation is strict but the process sandbox cannot provide "
                    + missing.stream().map(IsolationFeature::wireName).collect(Collectors.joining(", ")) + " on this host (" + chosen.why + "); install bubblewrap, run as root "
                    + "with user namespaces enabled, or set sandbox.isolation: best-effort");
        }
        this.isolation = Isolation.of(TIER, chosen.features, missing);
        this.isolationWithNetwork = isolation.without(IsolationFeature.NETWORK_NONE);
        this.killer = new Killer(plan.mode() != Mode.PLAIN && chosen.features.contains(IsolationFeature.PID_NAMESPACE));
        if (preStarted > 0 && plan.mode() == Mode.BWRAP && interpreters.binary(Language.PYTHON).isPresent()) {
            this.warmRoot = warmRoot(workRoot);
            this.warm = new WarmPool(preStarted, threads, this::startWarm, this::discardWarm);
        } else {
            this.warmRoot = null;
            this.warm = null;
        }
        this.shutdownHook = new Thread(this::close, "process-sandbox-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        log.debug("process sandbox: mode {}, features {}, missing {}, languages {}, pre-started {}", plan.mode(),
                chosen.features, missing, interpreters.all(), warm == null ? 0 : preStarted);
    }

    private record Chosen(CommandPlan plan, Set<IsolationFeature> features, String why) {
    }

    /** Probes the best wrapping first and settles for the first that really works. */
    private Chosen choose(IsolationMode mode) {
        List<Path> prefixes = interpreterPrefixes();
        List<String> reasons = new ArrayList<>();
        List<Mode> candidates = new ArrayList<>();
        if (tools.bwrap() != null) {
            candidates.add(Mode.BWRAP);
        } else {
            reasons.add("bubblewrap (bwrap) is not installed");
        }
        if (tools.root() && tools.unshare() != null && tools.setpriv() != null) {
            candidates.add(Mode.UNSHARE);
        }
        candidates.add(Mode.PLAIN);
        if (!tools.root()) {
            reasons.add("not running as root, so runs cannot get their own uid");
        }
        if (tools.prlimit() == null) {
            reasons.add("prlimit is not installed");
        }
        for (Mode m : candidates) {
            CommandPlan p = new CommandPlan(m, tools, prefixes, privateTime);
            long uid = uids == null ? -1 : uids.acquire();
            IsolationProbe.Result r;
            try {
                r = IsolationProbe.run(p, uid, workRoot);
            } finally {
                if (uid >= 0) {
                    uids.release(uid);
                }
            }
            if (r.ok()) {
                return new Chosen(p, r.features(), reasons.isEmpty() ? "probe" : String.join("; ", reasons));
            }
            reasons.add(m.name().toLowerCase() + " failed: " + r.problem());
            log.warn("process sandbox: {} does not work on this host: {}", m.name().toLowerCase(), r.problem());
        }
        if (mode == IsolationMode.STRICT) {
            return new Chosen(new CommandPlan(Mode.PLAIN, tools, prefixes), Set.of(), String.join("; ", reasons));
        }
        close();
        throw new SandboxUnavailableException("the process sandbox cannot start a process on this host: "
                + String.join("; ", reasons));
    }

    private List<Path> interpreterPrefixes() {
        List<Path> prefixes = new ArrayList<>();
        for (Path bin : interpreters.all().values()) {
            Path dir = bin.getParent();
            Path prefix = dir != null && dir.getFileName() != null && dir.getFileName().toString().equals("bin")
                    ? dir.getParent() : dir;
            if (prefix != null && !prefix.startsWith("/usr") && !prefix.toString().equals("/") && !prefixes.contains(prefix)) {
                prefixes.add(prefix);
            }
        }
        return prefixes;
    }

    /**
     * Work directories of runs whose JVM was killed before it could remove them: owned by a sandbox uid
     * that no JVM holds any more. (A JVM that exits normally, or on SIGTERM or Ctrl-C, removes its own.)
     */
    private static void removeLeftovers(Path root) {
        Path locks = UidPool.hostLockDir();
        try (java.util.stream.Stream<Path> entries = Files.list(root)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                String name = p.getFileName().toString();
                if (name.startsWith("codeagent-warm-")) {
                    removeDeadWarmRoot(p, locks);
                    continue;
                }
                if (!name.matches("codeagent-run-\\d+(\\.rusage)?")) {
                    continue;
                }
                try {
                    int owner = (Integer) Files.getAttribute(p, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
                    if (UidPool.unclaimed(locks, owner)) {
                        WorkDir.delete(p);
                        log.info("process sandbox: removed {}, left behind by a run whose JVM died", p);
                    }
                } catch (IOException | RuntimeException e) {
                    log.debug("process sandbox: could not check {}: {}", p, e.toString());
                }
            }
        } catch (IOException e) {
            log.debug("process sandbox: could not look for leftovers in {}: {}", root, e.toString());
        }
    }

    /**
     * A directory of pre-started sandboxes whose JVM was killed: it holds entries, and every one belongs to
     * a uid no JVM holds. (An empty one may be a live JVM's between two pre-starts: it is left alone.)
     */
    private static void removeDeadWarmRoot(Path dir, Path locks) {
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
            List<Path> all = entries.collect(Collectors.toList());
            if (all.isEmpty()) {
                return;
            }
            for (Path e : all) {
                int owner = (Integer) Files.getAttribute(e, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
                if (!UidPool.unclaimed(locks, owner)) {
                    return;
                }
            }
            WorkDir.delete(dir);
            log.info("process sandbox: removed {}, left behind by a JVM that died", dir);
        } catch (IOException | RuntimeException e) {
            log.debug("process sandbox: could not check {}: {}", dir, e.toString());
        }
    }

    /** Where pre-started sandboxes keep their measurement files: searchable, not listable, by their uids. */
    private Path warmRoot(Path root) {
        try {
            return Files.createTempDirectory(root, "codeagent-warm-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
        } catch (IOException e) {
            close();
            throw new SandboxUnavailableException("sandbox.process.workRoot: cannot create a directory in " + root + ": "
                    + e.getMessage(), e);
        }
    }

    private static Path workRoot(ProcessSandboxConfig config) {
        if (config.workRoot() != null && !config.workRoot().isBlank()) {
            return Path.of(config.workRoot()).toAbsolutePath();
        }
        return Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
    }

    /**
     * Runs reach their work directories as their own uid, so every directory above them must be
     * searchable by others (as /tmp is). Checked here so that a bad work root fails at start, clearly.
     */
    private void requireSearchable(Path root) {
        try {
            Files.createDirectories(root);
            for (Path p = root.toRealPath(); p != null; p = p.getParent()) {
                if (!Files.getPosixFilePermissions(p).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                    close();
                    throw new SandboxUnavailableException("sandbox.process.workRoot: " + p + " is not searchable by other "
                            + "users (mode o+x), so the sandbox's unprivileged uids cannot reach their work directories; "
                            + "use a directory like /tmp or chmod o+x " + p);
                }
            }
        } catch (IOException e) {
            close();
            throw new SandboxUnavailableException("sandbox.process.workRoot: cannot use " + root + ": " + e.getMessage(), e);
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "process-sandbox-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public String tier() {
        return TIER;
    }

    @Override
    public Set<Language> languages() {
        return Collections.unmodifiableSet(interpreters.all().keySet());
    }

    @Override
    public Isolation isolation() {
        return isolation;
    }

    /**
     * The interpreter binary and the flags this sandbox starts a language with (before the file name),
     * e.g. {@code [/usr/bin/python3.11, -S]}; empty when the language is not available here.
     */
    public List<String> interpreterCommand(Language language) {
        return interpreters.binary(language).map(bin -> {
            List<String> c = new ArrayList<>();
            c.add(bin.toString());
            c.addAll(LanguageProfile.of(language).interpreterFlags());
            return List.copyOf(c);
        }).orElse(List.of());
    }

    /** How many executions ran in a pre-started sandbox; for tests and diagnostics. */
    long preStartedExecutions() {
        return preStartedExecutions.get();
    }

    /** The wrapping the probe chose; for tests and diagnostics. */
    Mode mode() {
        return plan.mode();
    }

    @Override
    public Execution execute(ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        Language language = request.program().language();
        Path binary = interpreters.binary(language)
                .orElseThrow(() -> new UnsupportedLanguageException(language, TIER, languages()));
        Isolation runIsolation = request.limits().network() ? isolationWithNetwork : isolation;
        if (Thread.currentThread().isInterrupted()) {
            throw new ExecutionCancelledException("execution cancelled before it started");
        }
        if (closed) {
            return Execution.sandboxError("the process sandbox is closed", Duration.ZERO, runIsolation);
        }
        long memory = request.limits().memoryBytes();
        boolean warmable = warm != null && !request.limits().network();
        WarmPool.Warm pre = warmable ? warm.take(memory) : null;
        try {
            Execution e = pre != null ? executeWarm(pre, request, language, binary, runIsolation)
                    : executeCold(request, language, binary, runIsolation);
            return confirmWrapperFailure(e, binary);
        } finally {
            // The first execution of a sandbox may be its only one (the CLI): warm up from the second on.
            // A pre-started sandbox costs a bootstrap interpreter's start in CPU: worth it for latency when
            // cores are idle, a loss of throughput when they are busy with other runs.
            if (warmable && executions.incrementAndGet() > 1 && !closed && active.size() < Math.max(1, CORES / 2)) {
                warm.refill(memory);
            }
        }
    }

    /**
     * A run that looks as if a wrapper (bwrap, setpriv, prlimit, GNU time, the bootstrap) failed before the
     * program started is told so only by its stderr and exit status, which the program controls: hostile code
     * could print "bwrap: ..." and exit 1 to be reported as a sandbox failure, which callers retry, running
     * it again. So such a verdict stands only when the sandbox really is broken now: a probe run through the
     * same wrapping must fail, or the interpreter be gone. Otherwise the failure is the program's.
     */
    private Execution confirmWrapperFailure(Execution e, Path binary) {
        if (e == null || e.outcome() != dev.codeagent.domain.execution.Outcome.SANDBOX_ERROR || e.detail() == null
                || !e.detail().startsWith(WrapperFailure.DETAIL) || closed) {
            return e;
        }
        long uid = -1;
        IsolationProbe.Result probe;
        try {
            uid = uids == null ? -1 : uids.acquire();
            probe = IsolationProbe.run(plan, uid, workRoot);
        } catch (SandboxUnavailableException unavailable) {
            return e;
        } finally {
            if (uid >= 0) {
                releaseUid(uid, sweepUid(uid, Duration.ofSeconds(1)));
            }
        }
        if (!probe.ok() || !Files.isExecutable(binary)) {
            return e;
        }
        log.info("process sandbox: a run's stderr looked like a sandbox failure, but a probe runs fine: "
                + "reporting it as the program's error");
        String status = e.exitCode() != null ? "exited with status " + e.exitCode() : "killed by signal " + e.signal();
        return new Execution(dev.codeagent.domain.execution.Outcome.RUNTIME_ERROR, e.exitCode(), e.signal(), e.stdout(),
                e.stderr(), e.wallTime(), e.cpuTime(), e.peakMemoryBytes(),
                status + " (its stderr reads like a sandbox failure, but the sandbox works)", e.isolation());
    }

    private Execution executeCold(ExecutionRequest request, Language language, Path binary, Isolation runIsolation) {
        long started = System.nanoTime();
        long uid = -1;
        WorkDir dir = null;
        Path rusage = null;
        Result result = new Result();
        try {
            uid = uids == null ? -1 : uids.acquire();
            dir = WorkDir.create(workRoot, request.program(), uid);
            if (plan.measures()) {
                rusage = rusageFile(dir.path(), uid);
            }
            RunSpec spec = new RunSpec(uid, dir.path(), dir.files(), argv(language, binary, request),
                    environment(language, dir.path()), request.limits(), language != Language.JAVASCRIPT, rusage, true);
            Launch launch = Launch.start(spec, plan.command(spec), threads);
            run(new Run(launch, request.stdin().getBytes(StandardCharsets.UTF_8), request, runIsolation, killer), result);
        } catch (IOException | SandboxUnavailableException e) {
            log.warn("process sandbox could not prepare a run: {}", e.getMessage());
            result.execution = Execution.sandboxError("could not prepare the run: " + e.getMessage(),
                    Duration.ofNanos(System.nanoTime() - started), runIsolation);
        } finally {
            cleanUp(dir == null ? null : dir.path(), rusage);
            releaseUid(uid, result.clean);
        }
        return result.finish();
    }

    private Execution executeWarm(WarmPool.Warm pre, ExecutionRequest request, Language language, Path binary,
            Isolation runIsolation) {
        Result result = new Result();
        preStartedExecutions.incrementAndGet();
        try {
            Map<String, String> files = new java.util.LinkedHashMap<>();
            files.put(request.program().mainFileName(), request.program().source());
            files.putAll(request.program().files());
            byte[] job = WarmPool.job(argv(language, binary, request), environment(language, null), files,
                    WarmPool.limits(request.limits(), language != Language.JAVASCRIPT), request);
            run(new Run(pre.launch(), job, request, runIsolation, killer), result);
        } finally {
            releaseUid(pre.uid(), result.clean);
            // holds only the measurement file, already read: the program's files died with its tmpfs
            removeLater(pre.dir());
        }
        return result.finish();
    }

    private void removeLater(Path dir) {
        try {
            threads.execute(() -> cleanUp(dir, null));
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            cleanUp(dir, null);
        }
    }

    /** What one run came to, carried out of the clean-up. */
    private static final class Result {
        Execution execution;
        boolean clean = true;
        boolean cancelled;
        boolean closedDuringRun;

        Execution finish() {
            if (closedDuringRun) {
                // the owner closed the sandbox (shutdown): the run was cancelled, not failed
                throw new ExecutionCancelledException("execution cancelled: the sandbox was closed while the program ran");
            }
            if (cancelled) {
                // only now, after the clean-up, so that no clean-up step trips over the flag
                Thread.currentThread().interrupt();
                throw new ExecutionCancelledException("execution cancelled: the program was killed and its files removed");
            }
            return execution;
        }
    }

    private void run(Run run, Result result) {
        active.add(run);
        try {
            result.execution = run.execute();
            result.cancelled = run.cancelled();
            result.closedDuringRun = closed && result.execution != null
                    && result.execution.outcome() == dev.codeagent.domain.execution.Outcome.SANDBOX_ERROR;
        } finally {
            result.clean = run.clean();
            active.remove(run);
        }
    }

    private void releaseUid(long uid, boolean clean) {
        if (uid < 0) {
            return;
        }
        if (clean) {
            uids.release(uid);
        } else {
            log.error("process sandbox: processes of uid {} survived every kill; the uid is retired", uid);
            uids.retire(uid);
        }
    }

    /** Pre-starts one sandbox with its bootstrap waiting for a job. */
    private WarmPool.Warm startWarm(long memoryBytes) {
        if (closed) {
            return null;
        }
        long uid = uids == null ? -1 : uids.acquire();
        Path dir = null;
        try {
            dir = WarmPool.rusageDir(warmRoot, uid);
            Path rusage = plan.measures() ? rusageFile(dir.resolve("run"), uid) : null;
            Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8");
            List<String> boot = List.of(interpreters.binary(Language.PYTHON).orElseThrow().toString(), "-S", "-c",
                    WarmPool.BOOTSTRAP);
            RunSpec spec = new RunSpec(uid, dir, List.of(), boot, env, ResourceLimits.defaults().withMemoryBytes(memoryBytes),
                    true, rusage, false);
            return new WarmPool.Warm(Launch.start(spec, plan.command(spec), threads), uid, dir, rusage, memoryBytes);
        } catch (IOException | RuntimeException e) {
            cleanUp(dir, null);
            releaseUid(uid, true);
            throw new SandboxUnavailableException("could not pre-start a sandbox: " + e.getMessage(), e);
        }
    }

    /** Kills a pre-started sandbox that will not run anything, and releases what it held. */
    private void discardWarm(WarmPool.Warm w) {
        Process p;
        try {
            p = w.launch().process.get(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p = w.launch().process.getNow(null);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            p = null;
        }
        boolean clean = killer.killAll(p, w.uid());
        w.launch().streams.abandon();
        cleanUp(w.dir(), null);
        releaseUid(w.uid(), clean);
    }

    private static Path rusageFile(Path dir, long uid) throws IOException {
        Path f = dir.resolveSibling(dir.getFileName() + ".rusage");
        Files.deleteIfExists(f);
        Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        if (uid >= 0) {
            Files.setAttribute(f, "unix:uid", (int) uid);
        }
        return f;
    }

    private List<String> argv(Language language, Path binary, ExecutionRequest request) {
        List<String> a = new ArrayList<>();
        a.add(binary.toString());
        a.addAll(LanguageProfile.of(language).interpreterArgs(request.limits()));
        a.add(request.program().mainFileName());
        a.addAll(request.args());
        return a;
    }

    private Map<String, String> environment(Language language, Path hostDir) {
        String work = plan.mode() == Mode.BWRAP ? CommandPlan.SANDBOX_WORK : hostDir.toString();
        Map<String, String> env = new HashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", work);
        env.put("LANG", "C.UTF-8");
        env.put("TMPDIR", "/tmp");
        // no PYTHON* variables: the interpreter flags (LanguageProfile) say the same in every tier
        return env;
    }

    private void cleanUp(Path dir, Path rusage) {
        try {
            if (rusage != null) {
                Files.deleteIfExists(rusage);
            }
            if (dir != null) {
                WorkDir.delete(dir);
            }
        } catch (IOException e) {
            log.warn("process sandbox could not remove {}: {}", dir == null ? rusage : dir, e.toString());
        }
    }

    /** Kills every process of a uid; true when none is left alive (zombies are dead, their reaping is not ours). */
    static boolean sweepUid(long uid, Duration max) {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            List<Long> left = HostProcesses.ofUid(uid);
            if (left.isEmpty()) {
                return true;
            }

            left.forEach(HostProcesses::kill);
            if (System.nanoTime() > deadline) {
                return HostProcesses.ofUid(uid).isEmpty();
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return HostProcesses.ofUid(uid).isEmpty();
            }
        }
    }

    /** Kills executions in flight and releases the uids and threads. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran) this close
            }
        }
        if (warm != null) {
            warm.close();
        }
        for (Run r : active) {
            r.cancelFromClose();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!active.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        threads.shutdown();
        if (warmRoot != null) {
            cleanUp(warmRoot, null);
        }
        if (uids != null) {
            uids.close();
        }
    }

    @Override
    public String toString() {
        return "ProcessSandbox[" + plan.mode().name().toLowerCase() + ", " + isolation.sortedFeatures() + ", workRoot=" + workRoot
                + ", config=" + config + "]";
    }
}
