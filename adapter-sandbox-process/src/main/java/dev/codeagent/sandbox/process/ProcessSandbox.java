package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.CompilingSandbox;
import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.IsolationFeature;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.LiveExecution;
import dev.codeagent.domain.execution.Sandbox;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.domain.execution.UnsupportedLanguageException;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.kit.sandbox.BridgeSession;
import dev.codeagent.kit.sandbox.SeccompFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
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
 * and uts namespaces, seeing only a read-only /usr, a fresh /proc (host-identifying files masked, see
 * {@link LaunchPlan#MASKED_PROC}), a minimal /dev and size-capped private tmpfs mounts for /work and /tmp,
 * under a seccomp filter ({@code SeccompPolicy}). Its first process inside is a supervisor
 * ({@link Supervisor}), the namespace's init, which writes the program's files into the tmpfs (nothing
 * writable is on the host's disk), runs the program and reports its real wait status behind a nonce. Where
 * control groups can be had, every run has one ({@link ChildGroups}), joined before anything of the run exists
 * ({@link LaunchWrapper}): memory (every process, shm, memfd and tmpfs page, swap off), processes, and CPU time
 * summed over every process, polled by {@link Child} and enforced; the reported CPU time and peak memory are
 * the group's. On a poorer host it falls back to util-linux {@code unshare} or to plain rlimits, and
 * {@link #isolation()} says what is missing. The host is probed once, at construction, by running a tiny
 * command through the chosen wrapping.
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
 *
 * <p>The parts: {@link HostProbe} chooses the wrapping once; {@link LaunchPlan} builds every run's command
 * line, argv, environment and rlimits; {@link Launcher} prepares runs and has each {@link Child} wait for its
 * program; {@link Reaper} removes what runs (and JVMs that died) left; {@link WarmPool} keeps sandboxes started
 * ahead. This class wires them and decides, per execution, between a pre-started sandbox and a cold one.
 *
 * <p>One class of ~500 lines: it is the tier's side of both ports ({@code Sandbox}, {@code SessionSandbox}) and its
 * constructor sets up the host once (state directory, control groups, the parts above). The host set-up could be a
 * class of its own; it is left here while the tier's memory-limit work changes the same lines.
 */
public final class ProcessSandbox implements Sandbox, SessionSandbox {

    public static final String TIER = "process";
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    private static final Logger log = LoggerFactory.getLogger(ProcessSandbox.class);
    private final ProcessSandboxConfig config;
    private final HostTools tools;
    private final Interpreters interpreters;
    private final Path workRoot;
    private final LaunchPlan plan;
    private final Isolation isolation;
    private final Isolation isolationWithNetwork;
    private final UidPool uids;
    private final Launcher runner;
    private final ExecutorService threads;
    private final WarmPool warm;
    private final Path state;
    private Path judgeScripts;
    private final ChildGroups groups;
    private final java.util.concurrent.atomic.AtomicLong executions = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong preStartedExecutions = new java.util.concurrent.atomic.AtomicLong();
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
        this.workRoot = HostProbe.workRoot(config);
        // before anything is written or run from it: root compiles and runs its helpers from here
        HostProbe.requirePrivate(workRoot);
        this.threads = Executors.newCachedThreadPool(daemonThreads());
        try {
            UidPool pool = null;
            if (tools.root() && tools.setpriv() != null) {
                pool = UidPool.forHost(ForeignUids.load()::taken);
            }
            this.uids = pool;
            if (pool != null) {
                HostProbe.requireSearchable(workRoot);
                // before this sandbox claims any uid, so that a leftover of a uid it is about to claim is seen as one
                Reaper.removeLeftovers(workRoot);
            }
            Path privateTime = pool != null && tools.bwrap() != null && tools.time() != null
                    ? ExecuteOnlyCopy.of(tools.time(), workRoot).orElse(null) : null;
            if (pool != null && tools.bwrap() != null && tools.time() != null && privateTime == null) {
                log.warn("process sandbox: could not make an execute-only copy of {} in {}; the program could ptrace "
                        + "GNU time, which runs as its uid without its rlimits", tools.time(), workRoot);
            }
            List<String> why = new ArrayList<>();
            this.state = tools.bwrap() != null ? stateDir(workRoot, tools.cc(), why) : null;
            HostProbe.Choice chosen = HostProbe.choose(mode, tools, interpreters, privateTime, uids, workRoot, state);
            this.plan = chosen.plan();
            Set<IsolationFeature> features = new LinkedHashSet<>(chosen.features());
            this.groups = tools.cgroups() ? openGroups(why) : null;
            if (!tools.cgroups()) {
                why.add("control groups are not available to this sandbox");
            }
            if (groups != null) {
                features.addAll(List.of(IsolationFeature.CGROUP_MEMORY, IsolationFeature.CGROUP_CPU, IsolationFeature.CGROUP_PIDS));
            }
            Supervisor supervisor = plan.mode() == Mode.BWRAP
                    ? Supervisor.choose(tools.cc(), interpreters.binary(Language.PYTHON).orElse(null), workRoot) : null;
            if (supervisor != null) {
                // the supervisor writes the files into the tmpfs and is the sandbox's init (see Supervisor)
                features.add(IsolationFeature.TMPFS_ONLY);
                features.add(IsolationFeature.INIT);
            } else {
                why.add(plan.mode() == Mode.BWRAP ? "no C compiler or Python for the in-sandbox supervisor"
                        : "no bubblewrap: the program's files are on the host's disk and no supervisor is its init");
            }
            if (!chosen.features().contains(IsolationFeature.SECCOMP)) {
                why.add(plan.mode() == Mode.BWRAP ? "the seccomp filter is not in force" : "no bubblewrap to load a seccomp filter");
            }
            Set<IsolationFeature> missing = new LinkedHashSet<>(IsolationProbe.ALL_FEATURES);
            missing.removeAll(features);
            if (mode == IsolationMode.STRICT && !missing.isEmpty()) {
                throw new SandboxUnavailableException("sandbox.isolation is strict but the process sandbox cannot provide "
                        + missing.stream().map(IsolationFeature::wireName).collect(Collectors.joining(", "))
                        + " on this host (" + chosen.why() + (why.isEmpty() ? "" : "; " + String.join("; ", why))
                        + "); install bubblewrap, run as root with user namespaces enabled and control groups (v1, or"
                        + " a delegated v2 subtree), or to run without them anyway: --set sandbox.isolation=best-effort"
                        + " (or CODEAGENT_SANDBOX_ISOLATION)");
            }
            this.isolation = Isolation.of(TIER, features, missing);
            this.isolationWithNetwork = isolation.without(IsolationFeature.NETWORK_NONE);
            Killer killer = new Killer(plan.mode() != Mode.PLAIN && chosen.features().contains(IsolationFeature.PID_NAMESPACE));
            this.runner = new Launcher(plan, uids, new Reaper(uids), killer, threads, workRoot, groups, supervisor);
            if (config.zygoteMode().equals("all") && runner.forks()) {
                // every Python program will need it: started with the sandbox, not by the first program
                interpreters.binary(Language.PYTHON).ifPresent(python -> runner.prepareZygote(python, judgeScripts(python)));
            }
            if (preStarted > 0 && runner.supervised()) {
                this.warm = new WarmPool(preStarted, threads, runner::startWarm, runner::discardWarm);
            } else {
                this.warm = null;
            }
        } catch (SandboxUnavailableException e) {
            close();
            throw e;
        }
        this.shutdownHook = new Thread(this::close, "process-sandbox-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        log.debug("process sandbox: mode {}, features {}, missing {}, languages {}, pre-started {}", plan.mode(),
                isolation.sortedFeatures(), isolation.sortedMissing(), interpreters.all(), warm == null ? 0 : preStarted);
    }

    /**
     * The sandbox's own directory, root-owned: the compiled seccomp filter ({@link SeccompFilter}, compiled
     * once per sandbox, 0.2 ms) and an empty file that masks host files of /proc. Null, with the reason in
     * {@code why}, when it cannot be made (the filter is then missing from {@code isolation}).
     */
    private static Path stateDir(Path root, Path cc, List<String> why) {
        Path dir = null;
        try {
            Files.createDirectories(root);
            dir = Files.createTempDirectory(root, "codeagent-state-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            Path empty = Files.createFile(dir.resolve(LaunchPlan.EMPTY_FILE));
            Files.setPosixFilePermissions(empty, PosixFilePermissions.fromString("r--r--r--"));
            java.util.Optional<SeccompFilter> filter = SeccompFilter.forHost();
            if (filter.isPresent()) {
                filter.get().writeTo(dir.resolve(LaunchPlan.SECCOMP_FILE));
            } else {
                why.add("no seccomp syscall table for " + System.getProperty("os.arch"));
            }
            if (cc != null) {
                java.util.Optional<Path> launcher = ExecuteOnlyCopy.compiled(cc, root, "launch.c");
                try {
                    if (launcher.isPresent()) {
                        // a link, not a copy: the state directory goes with the sandbox, the compiled file stays
                        Files.createLink(dir.resolve(LaunchPlan.LAUNCH_FILE), launcher.get());
                    }
                } catch (IOException e) {
                    log.warn("process sandbox: cannot use the compiled launcher (runs start through sh and setpriv): {}",
                            e.toString());
                }
            }
            return dir;
        } catch (IOException e) {
            why.add("cannot write the seccomp filter in " + root + ": " + e.getMessage());
            Reaper.remove(dir, null);
            return null;
        }
    }

    /** Control groups for the runs, or null with the one-line reason in {@code why}. */
    private static ChildGroups openGroups(List<String> why) {
        try {
            return ChildGroups.open(ChildGroups.DEFAULT_PARENT);
        } catch (ChildGroups.Unavailable e) {
            why.add(e.getMessage());
            return null;
        } catch (RuntimeException e) {
            why.add("control groups: " + e.getMessage());
            return null;
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
     * e.g. {@code [/usr/bin/python3.11, -B, -E, -s, -u]} (the flags are the application's, in {@link Toolchains}, the same in every tier); empty when the language is not available here.
     */
    public List<String> interpreterCommand(Language language) {
        return interpreters.binary(language).map(bin -> {
            List<String> c = new ArrayList<>();
            c.add(bin.toString());
            c.addAll(Toolchains.interpreter(language).map(Toolchains.Interpreter::flags).orElse(List.of()));
            return List.copyOf(c);
        }).orElse(List.of());
    }

    /** The start paths the executions took; for tests and diagnostics. */
    ProcessDiagnostics diagnostics() {
        return runner == null ? new ProcessDiagnostics(executions.get(), preStartedExecutions.get(), 0, 0)
                : runner.diagnostics(executions.get(), preStartedExecutions.get());
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
        if (LanguageProfile.of(language).compiled()) {
            throw CompilingSandbox.refusal(language, TIER);
        }
        Isolation runIsolation = isolationFor(request);
        if (Thread.currentThread().isInterrupted()) {
            throw new ExecutionCancelledException("execution cancelled before it started");
        }
        if (closed) {
            return Execution.sandboxError("the process sandbox is closed", Duration.ZERO, runIsolation);
        }
        if (forks(request)) {
            Execution e = runner.forked(request, binary, runIsolation, judgeScripts(binary));
            if (e != null) {
                return closed ? e : runner.confirmWrapperFailure(e, binary);
            }
        }
        if (request.judged()) {
            return judged(request, binary, runIsolation);
        }
        long memory = request.limits().memoryBytes();
        boolean warmable = warm != null && !request.limits().network();
        WarmPool.Warm pre = warmable ? warm.take(memory) : null;
        try {
            Execution e = null;
            if (pre != null) {
                e = runner.warm(pre, request, binary, runIsolation);
                if (e != null) {
                    preStartedExecutions.incrementAndGet();
                }
            }
            if (e == null) {
                e = runner.cold(request, binary, runIsolation);
            }
            return closed ? e : runner.confirmWrapperFailure(e, binary);
        } finally {
            // The first execution of a sandbox may be its only one (the CLI): warm up from the second on.
            // A pre-started sandbox costs a bootstrap interpreter's start in CPU: worth it for latency when
            // cores are idle, a loss of throughput when they are busy with other runs.
            if (warmable && executions.incrementAndGet() > 1 && !closed && runner.active() < Math.max(1, CORES / 2)) {
                warm.refill(memory);
            }
        }
    }

    /** What a run of this request gets: the network is the one feature a request can change. */
    private Isolation isolationFor(ExecutionRequest request) {
        return request.limits().network() ? isolationWithNetwork : isolation;
    }

    /**
     * A live run: a cold, supervised sandbox of its own (never a pre-started one: its bootstrap takes its stdin in one
     * piece), whose stdin stays open and whose output reaches {@code listener} as it comes.
     */
    @Override
    public LiveExecution start(ExecutionRequest request, LiveExecution.Listener listener) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(listener, "listener");
        Language language = request.program().language();
        if (LanguageProfile.of(language).compiled()) {
            throw CompilingSandbox.refusal(language, TIER);
        }
        if (request.judged()) {
            throw new IllegalArgumentException("a judged request cannot run live");
        }
        Path binary = interpreters.binary(language)
                .orElseThrow(() -> new UnsupportedLanguageException(language, TIER, languages()));
        if (!runner.supervised()) {
            throw new UnsupportedOperationException("this process sandbox cannot run a program live: that needs its "
                    + "in-sandbox supervisor (bubblewrap and a C compiler or Python)");
        }
        if (closed) {
            throw new ExecutionCancelledException("the process sandbox is closed");
        }
        Isolation runIsolation = isolationFor(request);
        LiveChild live = new LiveChild(listener, request.limits().maxOutputBytes());
        return live.start(() -> runner.cold(request, binary, runIsolation, live));
    }

    /**
     * Whether the zygote runs this request (see {@link ProcessSandboxConfig#zygote}): Python without network, the
     * judged samples of a batch in mode {@code batch}, every such program in mode {@code all}.
     */
    private boolean forks(ExecutionRequest request) {
        String mode = config.zygoteMode();
        if (mode.equals("off") || request.program().language() != Language.PYTHON || request.limits().network()
                || !runner.forks()) {
            return false;
        }
        return mode.equals("all") || request.judged() && request.judging().batch() != null;
    }

    /**
     * A judged run needs the supervised sandbox (bubblewrap and Python: each side's files in its own tmpfs, the
     * real exit status) and two pool uids; without them there is no judging here, and the run says so rather
     * than running the tests where the code could reach them.
     */
    private Execution judged(ExecutionRequest request, Path binary, Isolation runIsolation) {
        Path scripts = judgeScripts(binary);
        if (!runner.supervised() || uids == null || scripts == null) {
            return Execution.sandboxError("this process sandbox cannot judge: a judged run needs bubblewrap, Python "
                    + "for the in-sandbox supervisor and root (two uids of its own)", Duration.ZERO, runIsolation);
        }
        Execution e = runner.judged(request, binary, runIsolation, scripts);
        return closed ? e : runner.confirmWrapperFailure(e, binary);
    }

    /**
     * The judge's scripts, written once into the sandbox's own root-owned directory and compiled there by the
     * sandbox's own {@code python} (so neither side compiles them again per run); null when they cannot be.
     */
    private synchronized Path judgeScripts(Path python) {
        if (judgeScripts == null && state != null) {
            try {
                judgeScripts = JudgeChannel.writeScripts(state, python);
            } catch (IOException e) {
                log.warn("process sandbox: cannot write the judge's scripts into {}: {}", state, e.getMessage());
            }
        }
        return judgeScripts;
    }

    /** Debian's python3, the one with ipykernel (a pyenv or virtualenv interpreter first on PATH would not have it). */
    static final Path KERNEL_PYTHON = Path.of("/usr/bin/python3");
    private static final java.security.SecureRandom SESSION_IDS = new java.security.SecureRandom();

    /**
     * A session in a sandbox of its own (see {@code SessionLaunches.startSession}): the kernel bridge under bubblewrap, a
     * pool uid, the session's control group and the seccomp filter, never shared, removed when the session ends.
     */
    @Override
    public Session open(SessionLimits limits) {
        Objects.requireNonNull(limits, "limits");
        if (closed) {
            throw new SandboxUnavailableException("the process sandbox is closed");
        }
        if (!runner.supervised() || uids == null) {
            throw new SandboxUnavailableException("sessions need bubblewrap and root (a uid of their own) on this host");
        }
        if (!Files.isExecutable(KERNEL_PYTHON)) {
            throw new SandboxUnavailableException(KERNEL_PYTHON + " is missing: sessions need Debian's python3 with "
                    + "python3-ipykernel and python3-jupyter-client");
        }
        // the port's contract: unguessable, since a front door may hand it out as the session's only name
        byte[] id = new byte[16];
        SESSION_IDS.nextBytes(id);
        return BridgeSession.start("s-" + java.util.HexFormat.of().formatHex(id), limits, runner.startSession(limits, KERNEL_PYTHON));
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
        if (runner != null) {
            runner.closing();
        }
        if (warm != null) {
            warm.close();
        }
        if (runner != null) {
            runner.close();
        }
        threads.shutdown();
        if (state != null) {
            Reaper.remove(state, null);
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
