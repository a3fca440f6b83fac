package dev.codeagent.sandbox.docker;


import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.OutcomeClassifier.Enforced;
import dev.codeagent.domain.execution.OutcomeClassifier.Termination;
import dev.codeagent.domain.execution.OutcomeClassifier;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.kit.sandbox.JudgeReportJson;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The docker tier's executions: one program in a (pooled or fresh) container, its limits held from outside (the
 * start-up deadline, the wall clock, the group's CPU time), its end classified from the supervisor's report or,
 * without one, from the engine's OOM verdict. Containers come from and go back to the {@link ContainerKeeper}.
 */
final class DockerExecutions {

    private static final Logger log = LoggerFactory.getLogger(DockerExecutions.class);
    private static final OutcomeClassifier CLASSIFIER = new OutcomeClassifier();

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
    private final ContainerKeeper keeper;
    private final Isolation isolation;
    private final long tmpfsBytes;
    /**
     * Under gVisor, where the engine's profile does not reach the program (runsc applies it only with --oci-seccomp,
     * which breaks select() in 0.0~20221219): codeagent's own filter, which the supervisor installs in the
     * program's process itself (gVisor's kernel runs seccomp filters). Null under runc, where the profile does it.
     */
    private final byte[] programFilter;
    private final boolean gvisor;
    /**
     * A reusable container's group memory before its first job (its idle supervisor, under gVisor its kernel): a job
     * can leave memory charged there that no clean-up inside frees (kernel caches, gVisor's heap), and the watch takes
     * what the group holds at a job's start as not the job's, so the next job's room would shrink by it.
     */
    private final Map<String, Long> firstBase = new ConcurrentHashMap<>();
    /**
     * How much less memory than its first job the next job of a reusable container may get, under gVisor only: its
     * kernel's heap grows by about 8 MiB with the first job and stays (measured), which under runc the supervisor's
     * 16 MiB of headroom absorbs whole; a job may leave at most the rest.
     */
    static final long GVISOR_REUSE_MEMORY_SLACK = 12L << 20;

    /** Whether reusable containers have zygotes (zygote.py), which a container's first job waits for. */
    private final boolean zygotes;

    DockerExecutions(DockerEngine engine, ContainerKeeper keeper, Isolation isolation, long tmpfsBytes, byte[] programFilter,
            boolean gvisor, boolean zygotes) {
        this.zygotes = zygotes;
        this.engine = engine;
        this.keeper = keeper;
        this.isolation = isolation;
        this.tmpfsBytes = tmpfsBytes;
        this.programFilter = programFilter;
        this.gvisor = gvisor;
    }

    /** Runs the request's program in container {@code id}, taken for it; the container is given back or removed. */
    Execution run(String id, ExecutionRequest request, long t0) {
        return run(id, request, t0, null, null);
    }

    /**
     * As {@link #run(String, ExecutionRequest, long)}, live when {@code live} is not null: the stream stays open for
     * its frames and hands it the program's output as it comes.
     */
    Execution run(String id, ExecutionRequest request, long t0, LiveDocker live) {
        return run(id, request, t0, live, null);
    }

    /**
     * As {@link #run(String, ExecutionRequest, long, LiveDocker)}; {@code batchKey} not null for a reusable container
     * ({@link DockerContainers.Spec#forBatches(boolean)}), which goes back to the keeper for that batch's next job when its
     * supervisor reports the job's end and says the container holds nothing of it, and is removed otherwise.
     */
    Execution run(String id, ExecutionRequest request, long t0, LiveDocker live, String batchKey) {
        ResourceLimits limits = request.limits();
        Language language = request.program().language();
        String nonce = Bootstrap.newNonce();
        AttachSession session = new AttachSession(limits.maxOutputBytes(), nonce);
        // how the container goes when the run is over: removed now unless it already was, or the
        // program reported its end (then nothing of it runs any more and removal may trail)
        boolean removed = false;
        boolean removeNow = true;
        boolean keep = false;
        try {
            if (batchKey != null && zygotes && !firstBase.containsKey(id)) {
                awaitZygotes(id);
            }
            // the group's CPU time before the program: a pooled container's idle bootstrap (and under gVisor,
            // its kernel's boot) is not the program's
            GroupCpu meter = GroupCpu.of(id, engine);
            long cpuBefore = meter.nanos();
            // read before the program starts: what the idle supervisor holds is not the program's
            GroupMemory memory = GroupMemory.of(id, limits.memoryBytes()).orElse(null);
            long start = System.nanoTime();
            // the group's exact figure, read every 50 ms, holds the CPU limit where there is one (runc and gVisor alike);
            // RLIMIT_CPU, checked against clocks that run ahead on a loaded host, is a backstop behind it
            long cpuBackstop = Bootstrap.cpuBackstop(limits, meter.exact(), gvisor);
            if (live == null) {
                engine.attach(id, Bootstrap.payload(request, tmpfsBytes, nonce, programFilter, cpuBackstop), session);
            } else {
                session.tap(live);
                live.payload(Bootstrap.livePayload(request, tmpfsBytes, nonce, programFilter, cpuBackstop));
                engine.attach(id, live.containerStdin(), session);
            }
            Watch watch = watch(session, meter, cpuBefore, memory, limits, start);
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
                if (watch.memory()) {
                    // the group's memory used up, read from outside: the run's memory, not its speed, ended it, also
                    // when reclaim would have let it crawl to the time limit first
                    return classified(Termination.enforced(language, Enforced.MEMORY, false, false, out.stderr().text()),
                            limits, out, wall, null, null);
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
            // the bootstrap killed all the program left behind before reporting and exits now: removal can trail;
            // or, reusable, it also removed all the job could leave and waits for the batch's next job
            removeNow = false;
            if (report.zygoteFailure() != null) {
                // the job itself ran (its interpreters started afresh); the container is not reused
                log.warn("docker sandbox: container {}: its zygotes failed: {}", id, report.zygoteFailure());
            }
            keep = batchKey != null && report.again() && memoryGaveBack(id, memory);
            if (batchKey != null && report.spent() != null) {
                log.debug("docker sandbox: container {} not reused: {}", id, report.spent());
            }
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
            if (!keep) {
                firstBase.remove(id);
            }
            if (removed) {
                keeper.forget(id);
            } else if (keep) {
                keeper.keepForBatch(batchKey, id);
            } else {
                keeper.release(id, removeNow);
            }
        }
    }

    /**
     * Whether the next job of a reusable container would get as much memory as its first job did (under gVisor, at
     * most {@link #GVISOR_REUSE_MEMORY_SLACK} less), given what its group holds now: memory a job left charged there
     * (kernel caches no clean-up inside frees) would otherwise come off the next job's limit. Unknown (the group's
     * files not local) is no.
     */
    /**
     * Waits, before a reusable container's first job, until its supervisor says its zygotes are up: what they hold is
     * then in the memory read before the job, not taken as the job's (under gVisor they come up in about a second, and
     * the first job got ~25 MiB less than its limit). A container whose zygotes fail still runs the job (its
     * interpreters started afresh) and then retires.
     */
    private void awaitZygotes(String id) throws InterruptedException {
        String nonce = Bootstrap.newNonce();
        AttachSession ready = new AttachSession(1 << 16, nonce);
        try {
            engine.attach(id, Bootstrap.readyPayload(nonce), ready);
            AttachSession.End end = ready.await(START_UP.toNanos());
            Bootstrap.Report report = ready.report();
            if (end != AttachSession.End.REPORTED || report == null || !report.again()) {
                log.warn("docker sandbox: container {}: its zygotes did not come up ({}): {}", id, end,
                        report == null ? ready.snapshot().stderr().text() : report.zygoteFailure());
            }
        } finally {
            ready.close();
        }
    }

    private boolean memoryGaveBack(String id, GroupMemory memory) {
        if (memory == null) {
            return false;
        }
        long first = firstBase.computeIfAbsent(id, k -> memory.base());
        OptionalLong now = memory.unreclaimable();
        boolean gaveBack = now.isPresent()
                && memory.roomAt(now.getAsLong()) >= memory.roomAt(first) - (gvisor ? GVISOR_REUSE_MEMORY_SLACK : 0);
        if (!gaveBack) {
            log.debug("docker sandbox: container {} not reused: its group holds {} bytes, {} before its first job", id,
                    now.isPresent() ? now.getAsLong() : -1, first);
        }
        return gaveBack;
    }

    /**
     * How the waiting for a run ended: with the stream's end, or (null) at a limit; the group's CPU time when that limit
     * was CPU, {@code memory} when it was the group's memory used up.
     */
    private record Watch(AttachSession.End end, Duration cpu, boolean memory) {
    }

    /** How often the group's memory is read while a program runs: a run can cross its last 16 MiB in a few ms. */
    static final Duration MEMORY_POLL = Duration.ofMillis(20);

    /**
     * Waits for the run to end while holding its limits: a start-up deadline until the supervisor says the
     * program started, the wall-clock limit from then on (so a loaded host's slow attach costs the program
     * nothing), the CPU-time limit over the container's whole group, read every {@link GroupCpu#poll()}, and the
     * group's memory (when its files are local, {@code memory} not null), read every {@link #MEMORY_POLL}.
     */
    private static Watch watch(AttachSession session, GroupCpu meter, long cpuBefore, GroupMemory memory,
            ResourceLimits limits, long start) throws InterruptedException {
        long wallNanos = limits.wallTime().toNanos();
        long startDeadline = start + START_UP.toNanos();
        long cpuPollNanos = meter.poll().toNanos();
        long pollNanos = memory == null ? cpuPollNanos : Math.min(cpuPollNanos, MEMORY_POLL.toNanos());
        long nextCpuPoll = System.nanoTime() + cpuPollNanos;
        long nextPoll = System.nanoTime() + pollNanos;
        while (true) {
            long now = System.nanoTime();
            long deadline = session.started() ? session.startedAtNanos() + wallNanos : startDeadline;
            if (now - deadline >= 0) {
                return new Watch(null, null, false);
            }
            AttachSession.End end = session.await(Math.min(deadline - now, Math.max(0, nextPoll - now)));
            if (end != null) {
                return new Watch(end, null, false);
            }
            if (System.nanoTime() - nextPoll >= 0) {
                if (memory != null && memory.usedUp()) {
                    return new Watch(null, null, true);
                }
                if (System.nanoTime() - nextCpuPoll >= 0) {
                    Optional<Duration> cpu = groupCpu(meter, cpuBefore);
                    if (cpu.isPresent() && cpu.get().compareTo(limits.cpuTime()) > 0) {
                        return new Watch(null, cpu.get(), false);
                    }
                    nextCpuPoll = System.nanoTime() + cpuPollNanos;
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

    static Duration elapsed(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0);
    }
}
