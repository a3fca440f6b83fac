package dev.codeagent.sandbox.process;

import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.kit.sandbox.JudgeScripts;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.LanguageProfile;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.kit.sandbox.JudgeReportJson;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs executions: prepares a run (uid, control group, and a nonce for the supervisor's report; on hosts
 * without bubblewrap or Python a work directory and a measurement file instead), launches it through the
 * {@link LaunchPlan} (cold) or hands it to a pre-started sandbox (warm), and has its {@link Run} wait for the
 * program; then removes what the run left (its group in the background, off the reply path) and gives its uid
 * back. The single place that waits for a program.
 */
final class Runner {

    private static final Logger log = LoggerFactory.getLogger(Runner.class);

    private final LaunchPlan plan;
    private final UidPool uids;
    private final Reaper reaper;
    private final Killer killer;
    private final ExecutorService threads;
    private final Path workRoot;
    private final RunGroups groups;
    private final Supervisor supervisor;
    private final Set<Run> active = ConcurrentHashMap.newKeySet();
    private final java.security.SecureRandom random = new java.security.SecureRandom();
    private volatile boolean closed;

    /** Processes of a run that are not the program's: the launcher-turned-bubblewrap and the supervisor (pid 1). */
    static final int INFRA_PROCESSES = 2;

    Runner(LaunchPlan plan, UidPool uids, Reaper reaper, Killer killer, ExecutorService threads, Path workRoot) {
        this(plan, uids, reaper, killer, threads, workRoot, null, null);
    }

    /**
     * @param groups where each run's control group is made, or null where cgroups cannot be had
     * @param supervisor the in-sandbox supervisor ({@link Supervisor}) that runs as the
     *     sandbox's pid 1, or null (no bubblewrap, or no Python): runs then have their files bound in
     *     read-only from the host and their exit status is bubblewrap's
     */
    Runner(LaunchPlan plan, UidPool uids, Reaper reaper, Killer killer, ExecutorService threads, Path workRoot,
            RunGroups groups, Supervisor supervisor) {
        this.plan = plan;
        this.uids = uids;
        this.reaper = reaper;
        this.killer = killer;
        this.threads = threads;
        this.workRoot = workRoot;
        this.groups = groups;
        this.supervisor = plan.mode() == Mode.BWRAP ? supervisor : null;
    }

    /** Whether runs start under the in-sandbox supervisor. */
    boolean supervised() {
        return supervisor != null;
    }

    private RunGroup newGroup(ResourceLimits limits) throws IOException {
        return groups == null ? null
                : groups.create(limits.memoryBytes() + infraMemory(), limits.maxProcesses() + INFRA_PROCESSES);
    }

    /**
     * Memory a run's group holds beyond the request's limit, so that the program gets its limit, tmpfs pages
     * included: the supervisor (the Python one was measured at 9-10 MiB resident with ctypes loaded, the C one
     * needs well under 1) and headroom for the interpreter's file pages, without which a program filling its
     * memory to the limit thrashes in page reclaim (see docs/security-model.md).
     */
    private static long infraMemory() {
        return 16 * ResourceLimits.MIB;
    }

    private String nonce() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return java.util.HexFormat.of().formatHex(b);
    }

    /** The supervisor's job for a request running {@code argv}, then its stdin. */
    private byte[] job(ExecutionRequest request, List<String> argv, String nonce) {
        return WarmPool.job(argv, plan.environment(null), files(request), rlimits(request), request, nonce);
    }

    /** The request's files, its main file first, as a supervisor or a zygote's run writes them. */
    private static Map<String, String> files(ExecutionRequest request) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(request.program().mainFileName(), request.program().source());
        files.putAll(request.program().files());
        return files;
    }

    /** A supervised run's rlimits: Python's (and a judged candidate's, which is Python) with RLIMIT_AS. */
    private List<LaunchPlan.Limit> rlimits(ExecutionRequest request) {
        return LaunchPlan.rlimits(request.limits(),
                request.judged() || LaunchPlan.addressSpaceLimit(request.program().language()), groups != null);
    }

    private RunSpec supervisorSpec(long uid, ResourceLimits limits, RunGroup group) {
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8");
        return new RunSpec(uid, workRoot, List.of(), supervisor.argv(), env, limits, true, null, false,
                group, true, supervisor.binds());
    }

    /** Closes a run's group off the reply path: kill what is left, rmdir. */
    private void closeLater(RunGroup group) {
        if (group == null) {
            return;
        }
        try {
            threads.execute(group::close);
        } catch (RejectedExecutionException closing) {
            group.close();
        }
    }

    /** How many runs are in flight. */
    int active() {
        return active.size();
    }

    /** Runs the request in a sandbox started for it. */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation) {
        return cold(request, binary, isolation, null);
    }

    /**
     * Runs the request in a sandbox started for it; with {@code live}, its stdin stays open and its output also goes
     * to {@code live} as it comes (supervised runs only: the caller checks {@link #supervised()}).
     */
    Execution cold(ExecutionRequest request, Path binary, Isolation isolation, LiveRun live) {
        return cold(request, binary, isolation, live, null);
    }

    /** As {@link #cold(ExecutionRequest, Path, Isolation, LiveRun)}, the supervised run forked by {@code zygote} when one is given. */
    private Execution cold(ExecutionRequest request, Path binary, Isolation isolation, LiveRun live, Zygote zygote) {
        long started = System.nanoTime();
        long uid = -1;
        WorkDir dir = null;
        Path rusage = null;
        RunGroup group = null;
        Result result = new Result();
        try {
            uid = uids == null ? -1 : uids.acquire();
            group = newGroup(request.limits());
            if (supervisor != null) {
                // nothing on the host's disk: the supervisor (or the zygote's run) writes the files into the run's tmpfs
                run(startRun(request, plan.programArgv(binary, request), uid, group, List.of(), null, zygote, isolation)
                        .live(live), result);
            } else {
                if (live != null) {
                    throw new IllegalStateException("a live run needs the in-sandbox supervisor");
                }
                dir = WorkDir.create(workRoot, request.program(), uid);
                if (plan.measures() && group == null) {
                    rusage = rusageFile(dir.path(), uid);
                }
                RunSpec spec = new RunSpec(uid, dir.path(), dir.files(), plan.programArgv(binary, request),
                        plan.environment(dir.path()), request.limits(),
                        LaunchPlan.addressSpaceLimit(request.program().language()), rusage, true, group, false);
                Launch launch = Launch.start(spec, plan.command(spec), threads);
                run(new Run(launch, request.stdin().getBytes(StandardCharsets.UTF_8), request, isolation, killer, group, 0,
                        null), result);
            }
        } catch (IOException | SandboxUnavailableException e) {
            log.warn("process sandbox could not prepare a run: {}", e.getMessage());
            result.execution = Execution.sandboxError("could not prepare the run: " + e.getMessage(),
                    Duration.ofNanos(System.nanoTime() - started), isolation);
        } finally {
            Reaper.remove(dir == null ? null : dir.path(), rusage);
            reaper.release(uid, result.clean);
            closeLater(group);
        }
        return result.finish();
    }

    /** How long the judge may take to report once the candidate's run has ended (it sees the end at once). */
    static final Duration JUDGE_GRACE = Duration.ofSeconds(3);
    /** The judge's own memory: the tests' data and the values that crossed, not the candidate's heap. */
    static final long JUDGE_MEMORY = 256 * ResourceLimits.MIB;

    /**
     * Runs a judged request: the candidate ({@code candidate.py} running the code) in one sandbox as one pool
     * uid, the judge ({@code judge.py} running the tests) in a second sandbox as another, both cold and
     * supervised, joined only by the channel's two FIFOs. The candidate's sandbox holds the request's limits;
     * the judge's its own ({@link #judgeLimits}). The judge's verdict is the one line it writes, behind a nonce
     * the candidate never sees, to the stdout of its own sandbox, which only this JVM reads.
     */
    Execution judged(ExecutionRequest request, Path binary, Isolation isolation, Path scripts) {
        if (request.judging().batch() != null && uids != null) {
            JudgeServer server = server(request.judging().batch(), binary, scripts);
            if (server != null) {
                return judgedByServer(server, request, binary, isolation, scripts, null);
            }
        }
        long started = System.nanoTime();
        JudgeJob job = request.judging();
        long candidateUid = -1;
        long judgeUid = -1;
        RunGroup candidateGroup = null;
        RunGroup judgeGroup = null;
        Path channel = null;
        WorkDir judgeDir = null;
        Result result = new Result();
        Result judgeResult = new Result();
        Run judgeRun = null;
        java.util.concurrent.Future<?> judging = null;
        String verdictNonce = nonce();
        try {
            candidateUid = uids == null ? -1 : uids.acquire();
            judgeUid = uids == null ? -1 : uids.acquire();
            channel = JudgeChannel.create(workRoot);
            List<RunSpec.Bind> binds = JudgeChannel.binds(channel, scripts);
            ResourceLimits judgeLimits = judgeLimits(request.limits());
            candidateGroup = newGroup(request.limits());
            judgeGroup = newGroup(judgeLimits);

            // the judge runs unsupervised (bubblewrap is its init): its files are ours, bound read-only from a
            // directory of its uid's, and its exit status is not what is read from it — only its verdict line
            Map<String, String> judgeFiles = new LinkedHashMap<>();
            judgeFiles.put(JUDGE_TESTS, job.tests());
            if (job.prelude() != null) {
                judgeFiles.put(JUDGE_PRELUDE, job.prelude());
            }
            Program judgeProgram = new Program(Language.PYTHON, request.program().source(), judgeFiles);
            ExecutionRequest judgeRequest = new ExecutionRequest(judgeProgram, "", List.of(), judgeLimits);
            judgeDir = WorkDir.create(workRoot, judgeProgram, judgeUid);
            Map<String, String> env = new java.util.HashMap<>(plan.environment(judgeDir.path()));
            env.put("CODEAGENT_JUDGE_NONCE", verdictNonce);
            // the judge's CPU reading the sample's replies is the sample's: a flood of large values ends at its limit
            env.put("CODEAGENT_JUDGE_CPU", seconds(request.limits().cpuTime()));
            RunSpec judgeSpec = new RunSpec(judgeUid, judgeDir.path(), judgeDir.files(), judgeArgv(judgeRequest, job, binary, scripts),
                    env, judgeLimits, true, null, true, judgeGroup, false).withBinds(binds);
            Run jr = new Run(Launch.start(judgeSpec, plan.command(judgeSpec), threads), new byte[0], judgeRequest, isolation,
                    killer, judgeGroup, 0, null);
            judgeRun = jr;
            judging = threads.submit(() -> run(jr, judgeResult));

            run(startRun(request, candidateArgv(request, binary, scripts), candidateUid, candidateGroup, binds, null, null,
                    isolation), result);
            if (!result.cancelled) {
                awaitJudge(judging, jr);
            }
        } catch (IOException | SandboxUnavailableException e) {
            log.warn("process sandbox could not prepare a judged run: {}", e.getMessage());
            result.execution = Execution.sandboxError("could not prepare the judged run: " + e.getMessage(),
                    Duration.ofNanos(System.nanoTime() - started), isolation);
        } finally {
            if (judging != null && !judging.isDone()) {
                judgeRun.cancelFromClose();
                awaitJudge(judging, null);
            }
            Reaper.remove(channel, null);
            Reaper.remove(judgeDir == null ? null : judgeDir.path(), null);
            reaper.release(candidateUid, result.clean);
            reaper.release(judgeUid, judgeResult.clean);
            closeLater(candidateGroup);
            closeLater(judgeGroup);
        }
        Execution e = result.finish();
        return e == null ? null : e.withJudgement(verdict(judgeResult.execution, verdictNonce));
    }

    /**
     * A judged run of a batch job: the candidate as in {@link #judged}, the judge a child of the batch's
     * {@link JudgeServer}, forked for this job and joined to the candidate by the job's own channel.
     */
    private Execution judgedByServer(JudgeServer server, ExecutionRequest request, Path binary, Isolation isolation,
            Path scripts, Zygote zygote) {
        long started = System.nanoTime();
        long candidateUid = -1;
        RunGroup candidateGroup = null;
        Path channel = null;
        Result result = new Result();
        String verdictNonce = nonce();
        java.util.concurrent.CompletableFuture<String> verdict = null;
        String line = null;
        try {
            candidateUid = uids.acquire();
            channel = server.newChannel();
            List<RunSpec.Bind> binds = JudgeChannel.binds(channel, scripts);
            candidateGroup = newGroup(request.limits());
            ResourceLimits judgeLimits = judgeLimits(request.limits());
            verdict = server.submit(verdictNonce, judgeLimits.wallTime(), judgeLimits.memoryBytes(), request.limits().cpuTime(),
                    channel.getFileName().toString(), request.judging(), request.program().source());
            run(startRun(request, candidateArgv(request, binary, scripts), candidateUid, candidateGroup, binds,
                    server.channels().getFileName() + "/" + channel.getFileName(), zygote, isolation), result);
            if (!result.cancelled) {
                line = verdict.get(JUDGE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                serverJudged.incrementAndGet();
            }
        } catch (IOException | SandboxUnavailableException e) {
            log.warn("process sandbox could not prepare a judged run: {}", e.getMessage());
            result.execution = Execution.sandboxError("could not prepare the judged run: " + e.getMessage(),
                    Duration.ofNanos(System.nanoTime() - started), isolation);
        } catch (TimeoutException | ExecutionException e) {
            line = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (verdict != null && !verdict.isDone()) {
                server.kill(verdictNonce);
            }
            Reaper.remove(channel, null);
            if (candidateUid >= 0) {
                reaper.release(candidateUid, result.clean);
            }
            closeLater(candidateGroup);
        }
        Execution e = result.finish();
        return e == null ? null : e.withJudgement(line == null ? null : JudgeReportJson.parse(line).orElse(null));
    }

    /** The limits of a judge server's sandbox: as long as the sandbox lives, room for a child per concurrent job. */
    static final ResourceLimits SERVER_LIMITS = new ResourceLimits(Duration.ofHours(1), Duration.ofHours(1),
            4096 * ResourceLimits.MIB, 64, ResourceLimits.MIB, 4 * ResourceLimits.MIB, false);
    /** Servers kept at once (a batch each); the oldest goes when another batch comes. */
    private static final int MAX_SERVERS = 2;
    private final Map<String, JudgeServer> servers = new LinkedHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong serverJudged = new java.util.concurrent.atomic.AtomicLong();

    /** How many judged runs a judge server judged; for tests. */
    long serverJudged() {
        return serverJudged.get();
    }

    /** The live judge server of {@code batch}, started when there is none; null when none can be started. */
    private JudgeServer server(String batch, Path binary, Path scripts) {
        synchronized (servers) {
            if (closed) {
                return null;
            }
            JudgeServer s = servers.get(batch);
            if (s != null && s.alive()) {
                return s;
            }
            if (s != null) {
                servers.remove(batch).close();
            }
            while (servers.size() >= MAX_SERVERS) {
                String oldest = servers.keySet().iterator().next();
                servers.remove(oldest).close();
            }
            s = startServer(binary, scripts);
            if (s != null) {
                servers.put(batch, s);
            }
            return s;
        }
    }

    private JudgeServer startServer(Path binary, Path scripts) {
        Path channels = null;
        try {
            channels = Files.createTempDirectory(channelsRoot(), "codeagent-judges-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            Files.setPosixFilePermissions(channels, PosixFilePermissions.fromString("rwx--x--x"));
            List<String> argv = new ArrayList<>();
            argv.add(binary.toString());
            argv.addAll(JUDGE_FLAGS);
            argv.add(JudgeChannel.script(scripts, JudgeScripts.SERVER));
            LongLived server = startLongLived(SERVER_LIMITS, true, argv, List.of(
                    new RunSpec.Bind(channels, JudgeChannel.SANDBOX_CHANNELS), new RunSpec.Bind(scripts, JudgeChannel.SANDBOX_LIB)),
                    channels);
            return new JudgeServer(server.process(), channels, threads, server.release());
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot start a judge server (judging each job alone): {}", e.getMessage());
            Reaper.remove(channels, null);
            return null;
        }
    }

    /**
     * Where every judge server's channel directories are made: one directory, so that a {@link Zygote} started
     * before a batch's server can see that server's channels (each fork then binds only its own).
     */
    private Path channelsRoot() throws IOException {
        synchronized (servers) {
            if (channelsRoot == null) {
                Path dir = Files.createTempDirectory(channelsParent(), "codeagent-channels-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
                channelsRoot = dir;
            }
            return channelsRoot;
        }
    }

    /**
     * Where the channels' root goes: a tmpfs (/dev/shm) when the host has one, as FIFOs are made and removed by the
     * thousand in an evaluation (on ext4 each cost a third of a millisecond of inode allocation), else the work root.
     * Nothing is written to a FIFO's file system either way; the directory is root's and cannot be listed.
     */
    private Path channelsParent() {
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && "tmpfs".equals(Files.getFileStore(shm).type())) {
                return shm;
            }
        } catch (IOException e) {
            // the work root then
        }
        return workRoot;
    }

    private Path channelsRoot;
    private Zygote zygote;
    private int zygoteFailures;
    /** Starts after which no zygote is tried again: Python programs then start their own sandboxes. */
    private static final int ZYGOTE_TRIES = 3;
    /** A zygote's own sandbox: its interpreter and each fork until the fork has joined its own groups. */
    static final ResourceLimits ZYGOTE_LIMITS = new ResourceLimits(Duration.ofHours(1), Duration.ofHours(1),
            512 * ResourceLimits.MIB, 1024, ResourceLimits.MIB, 4 * ResourceLimits.MIB, false);
    private final java.util.concurrent.atomic.AtomicLong forkedRuns = new java.util.concurrent.atomic.AtomicLong();

    /** Whether Python runs can be forked from a zygote here (bubblewrap, root, control groups, the filter). */
    boolean forks() {
        return supervisor != null && uids != null && groups != null && plan.zygotes();
    }

    /** How many runs a zygote forked; for tests. */
    long forkedRuns() {
        return forkedRuns.get();
    }

    /** Starts the zygote now rather than at the first program that needs it (mode {@code all}). */
    void prepareZygote(Path python, Path scripts) {
        zygote(python, scripts);
    }

    /** The live zygote, started when there is none; null when none can be had (runs then start their own sandbox). */
    private Zygote zygote(Path python, Path scripts) {
        synchronized (servers) {
            if (closed || zygoteFailures >= ZYGOTE_TRIES) {
                return null;
            }
            if (zygote != null && zygote.alive()) {
                return zygote;
            }
            if (zygote != null) {
                zygote.close();
                zygote = null;
            }
            zygote = startZygote(python, scripts);
            if (zygote == null) {
                zygoteFailures++;
            }
            return zygote;
        }
    }

    private Zygote startZygote(Path python, Path scripts) {
        Path dir = null;
        RunGroup group = null;
        java.nio.channels.ServerSocketChannel door = null;
        try {
            dir = Files.createTempDirectory(workRoot, "codeagent-zygote-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path script = dir.resolve("zygote.py");
            try (var in = Runner.class.getResourceAsStream("zygote.py")) {
                if (in == null) {
                    throw new IOException("zygote.py is missing from the classpath");
                }
                Files.write(script, in.readAllBytes());
            }
            Path doorDir = Files.createDirectory(dir.resolve("door"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            door = Zygote.door(doorDir.resolve("door"));
            group = newGroup(ZYGOTE_LIMITS);
            List<String> command = plan.zygoteCommand(group, python, dir, doorDir, channelsRoot(), scripts,
                    groups.parents(), LanguageProfile.of(Language.PYTHON).interpreterArgs(ZYGOTE_LIMITS));
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
            pb.environment().clear();
            pb.environment().putAll(plan.environment(dir));
            Process p = pb.start();
            Path d = dir;
            RunGroup g = group;
            Zygote z = new Zygote(p, door, threads, () -> {
                p.destroyForcibly();
                if (g != null) {
                    g.close();
                }
                Reaper.remove(d, null);
            });
            if (!z.awaitReady(Duration.ofSeconds(15))) {
                log.warn("process sandbox: the zygote did not start (Python programs start their own sandboxes)");
                z.close();
                return null;
            }
            return z;
        } catch (IOException | RuntimeException e) {
            log.warn("process sandbox: cannot start a zygote (Python programs start their own sandboxes): {}", e.toString());
            if (door != null) {
                try {
                    door.close();
                } catch (IOException closing) {
                    // nothing more to do
                }
            }
            if (group != null) {
                group.close();
            }
            Reaper.remove(dir, null);
            return null;
        }
    }

    /**
     * Runs a Python request (judged ones of a batch with the batch's {@link JudgeServer}) in a fork of the zygote;
     * null when no zygote can be had, and the caller runs it the usual way.
     */
    Execution forked(ExecutionRequest request, Path binary, Isolation isolation, Path scripts) {
        JudgeServer server = null;
        if (request.judged()) {
            server = request.judging().batch() == null ? null : server(request.judging().batch(), binary, scripts);
            if (server == null) {
                return null;
            }
        }
        Zygote z = zygote(binary, scripts);
        if (z == null) {
            return null;
        }
        return server != null ? judgedByServer(server, request, binary, isolation, scripts, z)
                : cold(request, binary, isolation, null, z);
    }

    /**
     * Starts a supervised run of {@code argv} with the request's files, rlimits and stdin: forked by {@code zygote}
     * when there is one ({@code channel}: its judge channel under the channels' root, or null), else in a sandbox of
     * its own with {@code binds}, its supervisor reporting behind a fresh nonce.
     */
    private Run startRun(ExecutionRequest request, List<String> argv, long uid, RunGroup group, List<RunSpec.Bind> binds,
            String channel, Zygote zygote, Isolation isolation) throws IOException {
        if (zygote != null) {
            // the supervisor's job without its nonce (the status comes from the run's init) and without the stdin
            dev.codeagent.kit.sandbox.SupervisorJob job = new dev.codeagent.kit.sandbox.SupervisorJob(
                    files(request), request.program().binaryFiles(), argv, plan.environment(null));
            rlimits(request).forEach(l -> job.rlimit(l.name(), l.soft(), l.hard()));
            RunSpec spec = new RunSpec(uid, workRoot, List.of(), argv, plan.environment(null), request.limits(), true, null,
                    false, group, true);
            Launch launch = zygote.launch(spec, nonce(), channel, group.procsFiles(), job.encode(), threads);
            forkedRuns.incrementAndGet();
            return new Run(launch, request.stdin().getBytes(StandardCharsets.UTF_8), request, isolation, killer, group, 0, null);
        }
        String nonce = nonce();
        RunSpec spec = supervisorSpec(uid, request.limits(), group).withMoreBinds(binds);
        return new Run(Launch.start(spec, plan.command(spec), threads), job(request, argv, nonce), request, isolation, killer,
                group, 0, nonce);
    }

    /**
     * Starts a session's kernel bridge ({@code python}, which must have ipykernel) in a sandbox of its own: a pool
     * uid, a control group with the session's memory and processes, RLIMIT_CPU at the session's CPU budget, no
     * network. The sandbox lives until the returned channel is destroyed.
     */
    SessionChannel startSession(dev.codeagent.domain.session.SessionLimits limits, Path python) {
        if (closed) {
            throw new SandboxUnavailableException("the process sandbox is closed");
        }
        LongLived bridge;
        try {
            Duration hour = Duration.ofHours(1);
            Duration cpu = limits.cpuBudget().compareTo(hour) > 0 ? hour : limits.cpuBudget();
            ResourceLimits rl = new ResourceLimits(hour, cpu, limits.memoryBytes(), limits.maxProcesses(),
                    limits.maxOutputBytesPerCell(), limits.diskBytes(), false);
            List<String> argv = List.of(python.toString(), "-I", "-c", dev.codeagent.kit.sandbox.BridgeSession.script());
            // no address-space limit: a kernel's threads reserve far more than they use; the group holds the memory
            bridge = startLongLived(rl, false, argv, List.of(), null);
        } catch (IOException | RuntimeException e) {
            throw new SandboxUnavailableException("could not start a session's sandbox: " + e.getMessage(), e);
        }
        SessionChannel channel = new SessionChannel(bridge.process(), threads, bridge.release());
        RunGroup g = bridge.group();
        if (g != null) {
            // the CPU budget is the whole session's, over every process it ever ran: the group's figure, polled
            long budget = limits.cpuBudget().toNanos();
            Process p = bridge.process();
            threads.submit(() -> {
                while (!channel.destroyed() && p.isAlive()) {
                    try {
                        if (g.cpuNanos() > budget) {
                            channel.ended("the session used its CPU budget of " + limits.cpuBudget().toSeconds() + "s");
                            return;
                        }
                        Thread.sleep(100);
                    } catch (InterruptedException | RuntimeException e) {
                        return;
                    }
                }
            });
        }
        return channel;
    }

    /** A sandbox that lives until {@link #release} runs: its process, its group (or null), and what ends it all. */
    private record LongLived(Process process, RunGroup group, Runnable release) {
    }

    /**
     * Starts {@code argv} unsupervised (bubblewrap is its init) in a sandbox that outlives any one request — a judge
     * server, a session's kernel bridge: a pool uid, a control group with {@code limits}, an empty work directory,
     * the tier's filter, {@code binds}. Its release kills the group and the uid's processes, sweeps the uid and
     * removes the work directory and {@code alsoRemove}; a failure to start leaves nothing of it behind.
     */
    private LongLived startLongLived(ResourceLimits limits, boolean addressSpaceLimit, List<String> argv,
            List<RunSpec.Bind> binds, Path alsoRemove) throws IOException {
        long uid = uids == null ? -1 : uids.acquire();
        RunGroup group = null;
        WorkDir dir = null;
        try {
            group = newGroup(limits);
            dir = WorkDir.create(workRoot, new Program(Language.PYTHON, "", Map.of()), uid);
            RunSpec spec = new RunSpec(uid, dir.path(), dir.files(), argv, plan.environment(dir.path()), limits,
                    addressSpaceLimit, null, true, group, false).withBinds(binds);
            ProcessBuilder pb = new ProcessBuilder(plan.command(spec)).directory(dir.path().toFile());
            pb.environment().clear();
            pb.environment().putAll(spec.env());
            Process p = pb.start();
            RunGroup g = group;
            Path d = dir.path();
            return new LongLived(p, g, () -> {
                boolean clean = g == null || g.killAll();
                clean = killer.killAll(p, uid) && clean;
                p.destroyForcibly();
                if (uid >= 0) {
                    reaper.release(uid, clean);
                }
                Reaper.remove(d, null);
                Reaper.remove(alsoRemove, null);
                closeLater(g);
            });
        } catch (IOException | RuntimeException e) {
            if (group != null) {
                group.killAll();
                closeLater(group);
            }
            Reaper.remove(dir == null ? null : dir.path(), null);
            if (uid >= 0) {
                reaper.release(uid, true);
            }
            throw e;
        }
    }

    /** Waits for the judge's run to end, the grace at most; then (when {@code run} is given) ends it. */
    private static void awaitJudge(java.util.concurrent.Future<?> judging, Run run) {
        try {
            judging.get(JUDGE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            return;
        } catch (TimeoutException e) {
            if (run == null) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.CancellationException e) {
            return;
        }
        if (run != null) {
            run.cancelFromClose();
            boolean interrupted = Thread.interrupted();
            try {
                judging.get(JUDGE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException | ExecutionException | TimeoutException | java.util.concurrent.CancellationException e) {
                // it was killed; its clean-up is the run's own
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The judge's report in its stdout: the line behind the nonce, or null when there is none. */
    static JudgeReport verdict(Execution judge, String nonce) {
        if (judge == null) {
            return null;
        }
        for (String line : judge.stdout().text().split("\n")) {
            if (line.startsWith(nonce)) {
                JudgeReport r = JudgeReportJson.parse(line.substring(nonce.length())).orElse(null);
                if (r != null) {
                    return r;
                }
            }
        }
        log.debug("process sandbox: the judge reported nothing ({}; stderr ends: {})", judge.outcome(),
                tail(judge.stderr().text()));
        return null;
    }

    private static String tail(String s) {
        return s.length() > 500 ? s.substring(s.length() - 500) : s;
    }

    /**
     * The judge's limits: as long as the candidate may take plus a grace (it waits for the candidate the whole
     * time, and the candidate waits for it while the tests run), a memory of its own, no network.
     */
    static ResourceLimits judgeLimits(ResourceLimits candidate) {
        Duration wall = candidate.wallTime().plus(JUDGE_GRACE);
        return new ResourceLimits(wall, wall, Math.max(JUDGE_MEMORY, candidate.memoryBytes()), 16,
                ResourceLimits.MIB, ResourceLimits.MIB, false);
    }

    /** The candidate's job: {@code candidate.py} running the program's main file, with its files and stdin. */
    /** The candidate's command: {@code candidate.py} over the channel, running the request's code with its arguments. */
    private static List<String> candidateArgv(ExecutionRequest request, Path binary, Path scripts) {
        List<String> argv = new ArrayList<>();
        argv.add(binary.toString());
        argv.addAll(LanguageProfile.of(request.program().language()).interpreterArgs(request.limits()));
        argv.add(JudgeChannel.script(scripts, JudgeScripts.CANDIDATE));
        argv.add(JudgeChannel.SANDBOX_CHANNEL + "/" + JudgeChannel.TO_CANDIDATE);
        argv.add(JudgeChannel.SANDBOX_CHANNEL + "/" + JudgeChannel.TO_JUDGE);
        argv.add(request.program().mainFileName());
        argv.addAll(request.args());
        return argv;
    }

    /**
     * The judge's command: {@code judge.py} over the channel, with its own copy of the code, the tests, the prelude.
     * Isolated mode without {@code site} (the tests need neither: a third of an interpreter's start), no bytecode
     * written, unbuffered.
     */
    private static List<String> judgeArgv(ExecutionRequest judgeRequest, JudgeJob job, Path binary, Path scripts) {
        List<String> argv = new ArrayList<>();
        argv.add(binary.toString());
        argv.addAll(JUDGE_FLAGS);
        argv.add(JudgeChannel.script(scripts, JudgeScripts.JUDGE));
        argv.add(JudgeChannel.SANDBOX_CHANNEL + "/" + JudgeChannel.TO_JUDGE);
        argv.add(JudgeChannel.SANDBOX_CHANNEL + "/" + JudgeChannel.TO_CANDIDATE);
        argv.add(judgeRequest.program().mainFileName());
        argv.add(JUDGE_TESTS);
        argv.add(job.prelude() == null ? "-" : JUDGE_PRELUDE);
        argv.add(String.join(",", job.entryPoints()));
        return argv;
    }

    /** {@code d} in seconds, as the judge scripts read a CPU limit. */
    static String seconds(Duration d) {
        return String.format(java.util.Locale.ROOT, "%.3f", d.toMillis() / 1000.0);
    }

        private static final List<String> JUDGE_FLAGS = List.of("-I", "-S", "-B", "-u");
    private static final String JUDGE_TESTS = "tests.py";
    private static final String JUDGE_PRELUDE = "prelude.py";

    /**
     * Runs the request in a pre-started sandbox: its supervisor gets the job, then the program's stdin. Its
     * group, made and joined at pre-start, is set to the request's limits first (a few cgroupfs writes); null
     * when it cannot be (the sandbox is discarded and the caller runs the request cold).
     */
    Execution warm(WarmPool.Warm pre, ExecutionRequest request, Path binary, Isolation isolation) {
        long cpuBase = 0;
        if (pre.group() != null) {
            try {
                ResourceLimits l = request.limits();
                pre.group().limit(l.memoryBytes() + infraMemory(), l.maxProcesses() + INFRA_PROCESSES);
                pre.group().resetPeak();
                // what the supervisor used before the job is not the program's
                cpuBase = pre.group().cpuNanos();
            } catch (IOException | RuntimeException e) {
                log.debug("process sandbox: cannot retarget a pre-started sandbox's group: {}", e.toString());
                discardWarm(pre);
                return null;
            }
        }
        Result result = new Result();
        try {
            String nonce = nonce();
            run(new Run(pre.launch(), job(request, plan.programArgv(binary, request), nonce), request, isolation, killer,
                    pre.group(), cpuBase, nonce),
                    result);
        } finally {
            reaper.release(pre.uid(), result.clean);
            closeLater(pre.group());
        }
        return result.finish();
    }

    /**
     * A run that looks as if a wrapper (bwrap, setpriv, prlimit, GNU time, the bootstrap) failed before the
     * program started is told so only by its stderr and exit status, which the program controls: hostile code
     * could print "bwrap: ..." and exit 1 to be reported as a sandbox failure, which callers retry, running
     * it again. So such a verdict stands only when the sandbox really is broken now: a probe run through the
     * same wrapping must fail, or the interpreter be gone. Otherwise the failure is the program's.
     */
    Execution confirmWrapperFailure(Execution e, Path binary) {
        if (e == null || e.outcome() != Outcome.SANDBOX_ERROR || e.detail() == null
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
                reaper.release(uid, Reaper.sweepUid(uid, Duration.ofSeconds(1)));
            }
        }
        if (!probe.ok() || !Files.isExecutable(binary)) {
            return e;
        }
        log.info("process sandbox: a run's stderr looked like a sandbox failure, but a probe runs fine: "
                + "reporting it as the program's error");
        String status = e.exitCode() != null ? "exited with status " + e.exitCode() : "killed by signal " + e.signal();
        return new Execution(Outcome.RUNTIME_ERROR, e.exitCode(), e.signal(), e.stdout(), e.stderr(), e.wallTime(),
                e.cpuTime(), e.peakMemoryBytes(), status + " (its stderr reads like a sandbox failure, but the sandbox works)",
                e.isolation()).withOutput(e.output());
    }

    /** Pre-starts one sandbox with its supervisor waiting for a job, in a group of its own; null once closed. */
    WarmPool.Warm startWarm(long memoryBytes) {
        if (closed || supervisor == null) {
            return null;
        }
        long uid = uids == null ? -1 : uids.acquire();
        RunGroup group = null;
        try {
            ResourceLimits limits = ResourceLimits.defaults().withMemoryBytes(memoryBytes);
            group = newGroup(limits);
            RunSpec spec = supervisorSpec(uid, limits, group);
            return new WarmPool.Warm(Launch.start(spec, plan.command(spec), threads), uid, group, memoryBytes);
        } catch (IOException | RuntimeException e) {
            if (group != null) {
                group.close();
            }
            reaper.release(uid, true);
            throw new SandboxUnavailableException("could not pre-start a sandbox: " + e.getMessage(), e);
        }
    }

    /** Kills a pre-started sandbox that will not run anything, and releases what it held. */
    void discardWarm(WarmPool.Warm w) {
        Process p;
        try {
            p = w.launch().process.get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p = w.launch().process.getNow(null);
        } catch (ExecutionException | TimeoutException e) {
            p = null;
        }
        boolean clean = w.group() == null || w.group().killAll();
        clean = killer.killAll(p, w.uid()) && clean;
        w.launch().streams.abandon();
        if (w.group() != null) {
            w.group().close();
        }
        reaper.release(w.uid(), clean);
    }

    /** From now on a run that fails is one the closing ended; nothing new is pre-started. */
    void closing() {
        closed = true;
    }

    /** Ends the runs in flight (they report a cancellation) and waits, briefly, for them to be cleaned up. */
    void close() {
        closed = true;
        synchronized (servers) {
            servers.values().forEach(JudgeServer::close);
            servers.clear();
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
        synchronized (servers) {
            if (zygote != null) {
                zygote.close();
                zygote = null;
            }
            Reaper.remove(channelsRoot, null);
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
                    && result.execution.outcome() == Outcome.SANDBOX_ERROR;
        } finally {
            result.clean = run.clean();
            active.remove(run);
        }
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
}
