package dev.codeagent.application.submit;

import dev.codeagent.application.eval.BadLine;
import dev.codeagent.application.eval.EvaluateSamples;
import dev.codeagent.application.eval.EvaluationDetails;
import dev.codeagent.application.eval.EvaluationException;
import dev.codeagent.application.eval.EvaluationReport;
import dev.codeagent.application.eval.Problem;
import dev.codeagent.application.eval.ProblemFormat;
import dev.codeagent.application.eval.ProblemSet;
import dev.codeagent.application.eval.RunBenchmark;
import dev.codeagent.application.eval.Sample;
import dev.codeagent.application.eval.SampleSet;
import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.view.EvaluationReportView;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Evaluations sent to a server: problems and the samples to judge (no generation), checked by {@link EvaluateSamples} in
 * the background on the configured sandbox, their progress and report kept in an {@link EvaluationLog}. A caller sees
 * and forgets its own (an operator, every one), as with runs.
 *
 * <p>Bounded so that one caller's benchmark cannot take the server: {@value #RUNNING_AT_ONCE} evaluation runs at a time
 * with {@value #WORKERS} programs at once (the rest of the sandbox's places stay for executions and runs), at most
 * {@value #MAX_WAITING} wait, one owner has at most {@value #MAX_PENDING_PER_OWNER} of them waiting or
 * running, and a request has at most {@value #MAX_PROBLEMS} problems, {@value #MAX_SAMPLES_PER_PROBLEM}
 * samples per problem and {@value #MAX_SAMPLES} samples, and
 * runs at most {@value #MAX_PROGRAMS} programs (an IO sample runs one per test); a caller keeps at most
 * {@value #MAX_KEPT} evaluations. Larger benchmarks are the CLI's ({@code codeagent eval}), which has the machine to itself.
 */
public final class SubmitEvaluations implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SubmitEvaluations.class);

    public static final int MAX_PROBLEMS = 500;
    public static final int MAX_SAMPLES_PER_PROBLEM = 100;
    public static final int MAX_SAMPLES = 2000;
    /** Programs one evaluation may run: a sample runs once, an IO sample once per test of its problem. */
    public static final int MAX_PROGRAMS = 10_000;
    public static final int RUNNING_AT_ONCE = 1;
    public static final int MAX_WAITING = 8;
    /** Evaluations one owner may have waiting or running at once, so that one key cannot take every place in the queue. */
    public static final int MAX_PENDING_PER_OWNER = 3;
    public static final int WORKERS = 2;
    public static final int MAX_KEPT = 100;
    /** The most evaluations a list answers at once. */
    public static final int MAX_LIST = 100;
    private static final int SUBJECT_CHARS = 200;
    private static final SecureRandom IDS = new SecureRandom();

    private final ExecuteCode executeCode;
    private final EvaluationLog evaluations;
    private final ResourceLimits limits;
    private final int workers;
    private final Clock clock;
    private final ExecutorService runner;
    /** Id to the evaluation taken and not ended (waiting or running), with its owner, so that each owner's are counted. */
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    private record Pending(String owner, java.util.concurrent.FutureTask<Void> task) {
    }

    /** Ids of the evaluations not started yet, in the order sent (forgotten ones are dropped when met); guarded by this. */
    private final java.util.Deque<String> waiting = new java.util.ArrayDeque<>();
    /** Owner to when (a count of starts) one of theirs last started; guarded by this. */
    private final Map<String, Long> lastStarted = new HashMap<>();
    private long starts;
    /**
     * Set when the server stops; guarded by {@link #writes}, which every write of a running evaluation holds, so that
     * none lands after {@link #close()} recorded it FAILED (a worker's last progress wrote RUNNING over it).
     */
    private boolean closed;
    private final Object writes = new Object();

    /**
     * @param executeCode runs every program, through the sandbox's places as every other execution does
     * @param evaluations where they are kept
     * @param limits what each program may consume (the configured limits)
     * @param workers programs of one evaluation run at once (fewer when the sandbox has not one place more)
     */
    public SubmitEvaluations(ExecuteCode executeCode, EvaluationLog evaluations, ResourceLimits limits, int workers,
            Clock clock) {
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
        this.evaluations = Objects.requireNonNull(evaluations, "evaluations");
        this.limits = Objects.requireNonNull(limits, "limits");
        // one place of the sandbox stays for executions and runs whenever it has two: with sandbox.maxConcurrent 2 the
        // evaluation's two workers took both, and every execution waited for a (possibly sleeping) sample to end
        this.workers = Math.max(1, Math.min(workers, executeCode.maxConcurrent() - 1));
        this.clock = Objects.requireNonNull(clock, "clock");
        AtomicInteger n = new AtomicInteger();
        this.runner = Executors.newFixedThreadPool(RUNNING_AT_ONCE, r -> {
            Thread t = new Thread(r, "evaluation-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Takes an evaluation: checked whole now (every problem and sample usable, within the caps, in a language the
     * sandbox runs), judged later.
     *
     * @return it, queued
     * @throws EvaluationRefusedException naming the field at fault and what to do, or saying the server is full
     */
    public synchronized Evaluation submit(Caller caller, EvaluationRequest request) {
        Objects.requireNonNull(caller, "caller");
        if (request.problems().isEmpty()) {
            throw EvaluationRefusedException.invalid("problems", "give at least one problem (HumanEval, MBPP or IO objects)");
        }
        if (request.problems().size() > MAX_PROBLEMS) {
            throw EvaluationRefusedException.invalid("problems", "at most " + MAX_PROBLEMS + " problems per evaluation, were "
                    + request.problems().size() + " (split the set, or run codeagent eval on a machine of your own)");
        }
        if (request.samples().isEmpty()) {
            throw EvaluationRefusedException.invalid("samples", "give at least one sample {\"task_id\", \"completion\"}");
        }
        if (request.samples().size() > MAX_SAMPLES) {
            throw EvaluationRefusedException.invalid("samples", "at most " + MAX_SAMPLES + " samples per evaluation, were "
                    + request.samples().size());
        }
        if (request.subject() != null && request.subject().chars().anyMatch(Character::isISOControl)) {
            // a NUL cannot be stored in PostgreSQL's text (the insert failed: a 500), and a subject is one line anyway
            throw EvaluationRefusedException.invalid("subject", "the subject is one line of text: no control characters"
                    + " (NUL, newlines, tabs); remove them and send it again");
        }
        ProblemSet problems = read("problems", () -> ProblemSet.of("problems", request.problems(), request.format()));
        refuseBad(problems.badLines());
        SampleSet samples = read("samples", () -> SampleSet.of("samples", request.samples(), problems));
        refuseBad(samples.badLines());
        Map<String, Integer> perProblem = new HashMap<>();
        for (Sample s : samples.samples()) {
            if (perProblem.merge(s.taskId(), 1, Integer::sum) > MAX_SAMPLES_PER_PROBLEM) {
                throw EvaluationRefusedException.invalid("samples", "at most " + MAX_SAMPLES_PER_PROBLEM
                        + " samples per problem; '" + s.taskId() + "' has more");
            }
        }
        // what bounds an evaluation's time is the programs it runs, not its samples: an IO sample runs once per test
        long programs = 0;
        for (Problem p : problems.problems()) {
            int runs = p.format() == ProblemFormat.IO ? p.cases().size() : 1;
            programs += (long) perProblem.getOrDefault(p.taskId(), 0) * runs;
        }
        if (programs > MAX_PROGRAMS) {
            throw EvaluationRefusedException.invalid("problems", "at most " + MAX_PROGRAMS + " programs per evaluation (each"
                    + " sample runs once, an IO sample once per test of its problem), these samples would run " + programs
                    + " (send fewer samples or tests per evaluation, or run codeagent eval on a machine of your own)");
        }
        for (Problem p : problems.problems()) {
            if (!executeCode.sandbox().languages().contains(p.language())) {
                throw EvaluationRefusedException.invalid("problems", "problem '" + p.taskId() + "' is in " + p.language().id()
                        + ", which this server's " + executeCode.sandbox().tier() + " sandbox does not run (it runs "
                        + executeCode.sandbox().languages().stream().map(Language::id).sorted().collect(Collectors.joining(", "))
                        + ")");
            }
        }
        String owner = caller.owner();
        if (evaluations.list(owner, MAX_KEPT).size() >= MAX_KEPT) {
            throw EvaluationRefusedException.full("you keep " + MAX_KEPT + " evaluations already: delete some "
                    + "(DELETE /v1/evaluations/{id}) before sending another");
        }
        // every pending one but those running waits (a forgotten one leaves pending at once); without a cap per owner,
        // one key's slow evaluations took every place and every other key was refused for as long as they ran
        long owned = pending.values().stream().filter(p -> p.owner().equals(owner)).count();
        if (owned >= MAX_PENDING_PER_OWNER) {
            throw EvaluationRefusedException.busy("your key has " + owned + " evaluations waiting or running already (at most "
                    + MAX_PENDING_PER_OWNER + " at once, so that other keys get a place); send this one when one of them"
                    + " is done, or forget one (DELETE /v1/evaluations/{id})");
        }
        if (pending.size() >= RUNNING_AT_ONCE + MAX_WAITING) {
            throw EvaluationRefusedException.busy(MAX_WAITING + " evaluations are waiting already; try again when one is done");
        }
        String subject = request.subject() == null || request.subject().isBlank()
                ? problems.problems().size() + " " + problems.format().id() + " problems, " + samples.samples().size() + " samples"
                : request.subject().strip();
        if (subject.length() > SUBJECT_CHARS) {
            subject = subject.substring(0, SUBJECT_CHARS - 1) + "…";
        }
        Evaluation queued = new Evaluation("ev-" + Long.toHexString(IDS.nextLong() & Long.MAX_VALUE), owner, subject,
                Evaluation.Status.QUEUED, clock.instant(), null, problems.problems().size(), samples.samples().size(), 0, 0,
                null, null);
        evaluations.add(queued);
        try {
            // in pending before it can start, so that its end (which removes it) comes after
            java.util.concurrent.FutureTask<Void> task = new java.util.concurrent.FutureTask<>(
                    () -> run(queued, problems, samples.samples()), null);
            pending.put(queued.id(), new Pending(owner, task));
            waiting.addLast(queued.id());
            // the runner is told that one more waits, not which: it picks when a place frees (see runNext)
            runner.execute(this::runNext);
        } catch (RejectedExecutionException e) {
            pending.remove(queued.id());
            waiting.remove(queued.id());
            evaluations.delete(queued.id());
            throw EvaluationRefusedException.busy("the server is stopping; send the evaluation again to another");
        }
        return queued;
    }

    /**
     * Starts the waiting evaluation whose owner started one longest ago (an owner that never did first; the first sent
     * among equals): first come, first served let one key's three slow evaluations, sent first, all run before another
     * key's. Called once per evaluation taken, so every one is started (or was forgotten).
     */
    private void runNext() {
        Pending next = null;
        synchronized (this) {
            waiting.removeIf(id -> !pending.containsKey(id));
            String chosen = null;
            for (String id : waiting) {
                Pending p = pending.get(id);
                if (p != null && (next == null
                        || lastStarted.getOrDefault(p.owner(), 0L) < lastStarted.getOrDefault(next.owner(), 0L))) {
                    next = p;
                    chosen = id;
                }
            }
            if (next == null) {
                return;
            }
            waiting.remove(chosen);
            if (lastStarted.size() > 10_000) {
                // owners come and go (a key each); forgetting who ran when only costs a moment's order
                lastStarted.clear();
            }
            lastStarted.put(next.owner(), ++starts);
        }
        next.task().run();
    }

    private static <T> T read(String field, java.util.function.Supplier<T> reading) {
        try {
            return reading.get();
        } catch (EvaluationException e) {
            throw EvaluationRefusedException.invalid(field, e.getMessage());
        }
    }

    /** A server refuses what the CLI would skip: a caller sent exactly these, and a skipped one would change pass@k. */
    private static void refuseBad(List<BadLine> bad) {
        if (!bad.isEmpty()) {
            BadLine first = bad.get(0);
            throw EvaluationRefusedException.invalid(first.file() + "[" + (first.line() - 1) + "]", first.reason()
                    + (bad.size() > 1 ? " (and " + (bad.size() - 1) + " more unusable)" : ""));
        }
    }

    private void run(Evaluation queued, ProblemSet problems, List<Sample> samples) {
        try {
            Evaluation running = queued.running();
            if (!record(running)) {
                return;
            }
            EvaluationReport report = new EvaluateSamples(executeCode, limits, workers).evaluate(problems.problems(), samples,
                    (result, progress) -> record(running.progressed(progress.done(), progress.passed())));
            EvaluationDetails details = EvaluationDetails.of(problems, new RunBenchmark.Result(report, null, null,
                    executeCode.sandbox().tier(), samples), report.passAtK(), queued.subject());
            record(running.finished(EvaluationReportView.of(details), clock.instant()));
        } catch (ExecutionCancelledException e) {
            // forgotten while it ran: nothing to record
            log.debug("evaluation {} cancelled", queued.id());
        } catch (RuntimeException e) {
            log.warn("evaluation {} failed: {}", queued.id(), e.toString());
            evaluations.find(queued.id()).ifPresent(now -> record(now.failed(
                    e instanceof EvaluationException ? e.getMessage() : "the evaluation failed: " + e, clock.instant())));
        } finally {
            pending.remove(queued.id());
        }
    }

    /** Writes a running evaluation's new state, unless the server stopped meanwhile. @return whether it was written */
    private boolean record(Evaluation e) {
        synchronized (writes) {
            return !closed && evaluations.update(e);
        }
    }

    /** The evaluation, when the caller may see it; another caller's is as one that does not exist. */
    public Optional<Evaluation> find(Caller caller, String id) {
        return evaluations.find(id).filter(e -> e.visibleTo(caller));
    }

    /** The caller's evaluations (an operator's: everyone's), newest first, at most {@value #MAX_LIST}. */
    public List<Evaluation> list(Caller caller) {
        return evaluations.list(caller.operator() ? null : caller.owner(), MAX_LIST);
    }

    /**
     * Forgets an evaluation, stopping it first when it waits or runs (its running programs are killed).
     *
     * @return whether the caller had one of that id
     */
    public boolean forget(Caller caller, String id) {
        if (find(caller, id).isEmpty()) {
            return false;
        }
        evaluations.delete(id);
        Pending p = pending.remove(id);
        if (p != null && p.task().cancel(true)) {
            log.debug("evaluation {} stopped", id);
        }
        return true;
    }

    /**
     * Stops every evaluation this server took and has not finished, and records them FAILED: they are not resumed, and
     * a kept one must not look as if it still ran. (One a crashed process left is still QUEUED or RUNNING: its owner
     * forgets it.)
     */
    @Override
    public void close() {
        synchronized (writes) {
            closed = true;
            for (String id : List.copyOf(pending.keySet())) {
                try {
                    evaluations.find(id).filter(e -> !e.ended()).ifPresent(e -> evaluations.update(e.failed(
                            "the server stopped before the evaluation was done; send it again", clock.instant())));
                } catch (RuntimeException e) {
                    log.warn("cannot record evaluation {} as stopped: {}", id, e.toString());
                }
            }
        }
        runner.shutdownNow();
        // the interrupted evaluations kill their programs; wait for that before the sandbox behind them closes (a
        // server stopping mid-run left a sample's sandbox running until its own backstop)
        try {
            if (!runner.awaitTermination(15, java.util.concurrent.TimeUnit.SECONDS)) {
                log.warn("an evaluation did not stop within 15 s of the server's stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
