package dev.codeagent.sandbox.process;

import dev.codeagent.application.compile.Toolchains;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Program;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.execution.SandboxUnavailableException;
import dev.codeagent.kit.sandbox.JudgeReportJson;
import dev.codeagent.kit.sandbox.JudgeScripts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Judged launches: the candidate and the judge in two sandboxes joined only by a channel, the judge started for the
 * job or, for a batch's jobs, forked by the batch's {@link JudgeServer} (see {@link JudgeServers}).
 */
final class JudgedLaunches extends Launches {

    private static final Logger log = LoggerFactory.getLogger(JudgedLaunches.class);

    /** How long the judge may take to report once the candidate's run has ended (it sees the end at once). */
    static final Duration JUDGE_GRACE = Duration.ofSeconds(3);
    /** The judge's own memory: the tests' data and the values that crossed, not the candidate's heap. */
    static final long JUDGE_MEMORY = 256 * ResourceLimits.MIB;
    static final List<String> JUDGE_FLAGS = List.of("-I", "-S", "-B", "-u");
    private static final String JUDGE_TESTS = "tests.py";
    private static final String JUDGE_PRELUDE = "prelude.py";

    private final JudgeServers judgeServers;
    private final CpuSlots cpus = new CpuSlots(Runtime.getRuntime().availableProcessors());

    JudgedLaunches(Launches shared, JudgeServers judgeServers) {
        super(shared);
        this.judgeServers = judgeServers;
    }

    /**
     * Runs a judged request: the candidate ({@code candidate.py} running the code) in one sandbox as one pool
     * uid, the judge ({@code judge.py} running the tests) in a second sandbox as another, both cold and
     * supervised, joined only by the channel's two FIFOs. The candidate's sandbox holds the request's limits;
     * the judge's its own ({@link #judgeLimits}). The judge's verdict is the one line it writes, behind a nonce
     * the candidate never sees, to the stdout of its own sandbox, which only this JVM reads.
     */
    Execution judged(ExecutionRequest request, Path binary, Isolation isolation, Path scripts) {
        if (request.judging().batch() != null && uids != null) {
            JudgeServer server = judgeServers.server(request.judging().batch(), binary, scripts);
            if (server != null) {
                return judgedByServer(server, request, binary, isolation, scripts, null);
            }
        }
        long started = System.nanoTime();
        JudgeJob job = request.judging();
        long candidateUid = -1;
        long judgeUid = -1;
        ChildGroup candidateGroup = null;
        ChildGroup judgeGroup = null;
        Path channel = null;
        WorkDir judgeDir = null;
        Result result = new Result();
        Result judgeResult = new Result();
        Child judgeRun = null;
        java.util.concurrent.Future<?> judging = null;
        String verdictNonce = nonce();
        try {
            candidateUid = uids == null ? -1 : uids.acquire();
            judgeUid = uids == null ? -1 : uids.acquire();
            channel = JudgeChannel.create(workRoot);
            JudgeChannel.handOver(channel, judgeUid, candidateUid);
            List<LaunchSpec.Bind> binds = JudgeChannel.binds(channel, scripts);
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
            LaunchSpec judgeSpec = new LaunchSpec(judgeUid, judgeDir.path(), judgeDir.files(), judgeArgv(judgeRequest, job, binary, scripts),
                    env, judgeLimits, true, null, true, judgeGroup, false).withBinds(binds);
            Child jr = new Child(Launch.start(judgeSpec, plan.command(judgeSpec), threads), new byte[0], judgeRequest, isolation,
                    killer, judgeGroup, 0, null);
            judgeRun = jr;
            judging = threads.submit(() -> run(jr, judgeResult));

            run(startChild(request, candidateArgv(request, binary, scripts), candidateUid, candidateGroup, binds, null, null, -1,
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
    Execution judgedByServer(JudgeServer server, ExecutionRequest request, Path binary, Isolation isolation,
            Path scripts, Zygote zygote) {
        long started = System.nanoTime();
        long candidateUid = -1;
        ChildGroup candidateGroup = null;
        Path channel = null;
        Result result = new Result();
        String verdictNonce = nonce();
        java.util.concurrent.CompletableFuture<String> verdict = null;
        String line = null;
        // both sides on one CPU when both are forks (a cold candidate's start dwarfs its turns with the judge)
        int cpu = zygote == null ? -1 : cpus.acquire();
        try {
            candidateUid = uids.acquire();
            channel = server.newChannel(candidateUid);
            List<LaunchSpec.Bind> binds = JudgeChannel.binds(channel, scripts);
            candidateGroup = newGroup(request.limits());
            ResourceLimits judgeLimits = judgeLimits(request.limits());
            verdict = server.submit(verdictNonce, judgeLimits.wallTime(), judgeLimits.memoryBytes(), request.limits().cpuTime(),
                    channel.getFileName().toString(), request.judging(), request.program().source(), cpu);
            Child candidate = startChild(request, candidateArgv(request, binary, scripts), candidateUid, candidateGroup, binds,
                    server.channels().getFileName() + "/" + channel.getFileName(), zygote, cpu, isolation);
            // the judge sends calls ahead of the tests: once it has failed them on a reply, the candidate may still be
            // computing a later call one process would never have made (one that never ends, say), which must not cost
            // the run its time limit or decide anything
            verdict.thenAccept(l -> {
                if (JudgeReportJson.parse(l).map(r -> r.outcome().decidedFromReplies()).orElse(false)) {
                    candidate.endJudged();
                }
            });
            run(candidate, result);
            if (!result.cancelled) {
                line = verdict.get(JUDGE_GRACE.toMillis(), TimeUnit.MILLISECONDS);
                batchJudged.incrementAndGet();
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
            cpus.release(cpu);
        }
        Execution e = result.finish();
        return e == null ? null : e.withJudgement(line == null ? null : JudgeReportJson.parse(line).orElse(null));
    }

    /** Waits for the judge's run to end, the grace at most; then (when {@code run} is given) ends it. */
    private static void awaitJudge(java.util.concurrent.Future<?> judging, Child run) {
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
        argv.addAll(Toolchains.interpreterArgs(request.program().language(), request.limits()));
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
}
