package dev.codeagent.application.eval;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.JudgeJob;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.Submission;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks samples against their problems' tests, many at once, and reports pass@k.
 *
 * <p>Each sample becomes the program its dataset's convention prescribes (see {@link Problem}), judged
 * by the same {@link Judge} as the agent loop, so every failure carries its verdict and parsed error.
 * Every program runs through {@link ExecuteCode}, so isolation is exactly that of {@code exec}; what is
 * reused across samples is only JVM-side machinery (the worker threads, the judge, the sandbox object).
 * Results reach the listener as they finish.
 */
public final class EvaluateSamples {

    private static final Logger log = LoggerFactory.getLogger(EvaluateSamples.class);

    /** How long a stopped evaluation waits for its workers' programs to be killed. */
    private static final Duration WORKERS_STOP = Duration.ofSeconds(10);

    private final ExecuteCode executeCode;
    private final ResourceLimits limits;
    private final int workers;
    private static final java.security.SecureRandom BATCHES = new java.security.SecureRandom();

    private final Judge judge = new Judge();
    private final JudgeCode judgeCode;

    /**
     * @param executeCode runs each program
     * @param limits what each program may consume
     * @param workers programs run at once; capped at the executor's own concurrency limit
     */
    public EvaluateSamples(ExecuteCode executeCode, ResourceLimits limits, int workers) {
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
        this.limits = Objects.requireNonNull(limits, "limits");
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, was " + workers);
        }
        if (workers > executeCode.maxConcurrent()) {
            log.info("{} workers asked for, but the sandbox runs at most {} at once (sandbox.maxConcurrent); using {}",
                    workers, executeCode.maxConcurrent(), executeCode.maxConcurrent());
        }
        this.workers = Math.min(workers, executeCode.maxConcurrent());
        this.judgeCode = new JudgeCode(executeCode);
    }

    /** The default number of workers: two per available processor (executions spend much of their time starting up). */
    public static int defaultWorkers() {
        return Math.max(2, Runtime.getRuntime().availableProcessors() * 2);
    }

    public int workers() {
        return workers;
    }

    /**
     * Checks every sample and returns the report; blocks until all are judged.
     *
     * @throws IllegalArgumentException when a sample names a task not among the problems
     * @throws EvaluationException when the sandbox cannot run Python at all
     * @throws ExecutionCancelledException when the calling thread is interrupted (running programs are killed)
     */
    public EvaluationReport evaluate(List<Problem> problems, List<Sample> samples, EvaluationListener listener) {
        Objects.requireNonNull(listener, "listener");
        Map<String, Problem> byId = new HashMap<>();
        Map<String, Task> tasks = new HashMap<>();
        Map<String, JudgeJob> jobs = new HashMap<>();
        // one batch per evaluation: its tests all come from the problem set the caller gave, so the sandbox may
        // judge them in one warm judge process (a forked child per sample) instead of starting a judge per sample
        String batch = "eval-" + Long.toHexString(BATCHES.nextLong() & Long.MAX_VALUE);
        for (Problem p : problems) {
            byId.put(p.taskId(), p);
            tasks.put(p.taskId(), p.judgingTask(limits));
            JudgeJob job = p.judgeJob();
            if (job != null) {
                jobs.put(p.taskId(), job.inBatch(batch));
            }
            if (!executeCode.sandbox().languages().contains(p.language())) {
                throw new EvaluationException("problem '" + p.taskId() + "' is in " + p.language().id() + ", which the "
                        + executeCode.sandbox().tier() + " sandbox cannot run here (it runs "
                        + executeCode.sandbox().languages().stream().map(l -> l.id()).sorted().toList() + ")");
            }
        }
        for (Sample s : samples) {
            if (!byId.containsKey(s.taskId())) {
                throw new IllegalArgumentException("sample " + s.index() + " of task '" + s.taskId() + "' has no problem");
            }
        }
        int n = samples.size();
        long start = System.nanoTime();
        SampleResult[] results = new SampleResult[n];
        Tally tally = new Tally(n, start, listener);
        AtomicInteger next = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        // task id -> why its tests cannot load: found by the first sample judged, so the rest are not run at all
        Map<String, String> broken = new java.util.concurrent.ConcurrentHashMap<>();
        int threads = Math.max(1, Math.min(workers, n));
        ExecutorService pool = Executors.newFixedThreadPool(threads, namedDaemons());
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                running.add(pool.submit(() -> {
                    // pull the next sample in input order; no per-sample future, so 30 000 samples cost nothing to queue
                    for (int i = next.getAndIncrement(); i < n && !stop.get(); i = next.getAndIncrement()) {
                        Sample s = samples.get(i);
                        results[i] = check(byId.get(s.taskId()), tasks.get(s.taskId()), jobs.get(s.taskId()), s, broken);
                        tally.add(results[i]);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } catch (InterruptedException e) {
            stop.set(true);
            Thread.currentThread().interrupt();
            throw new ExecutionCancelledException("evaluation cancelled after " + tally.done() + " of " + n + " samples");
        } catch (ExecutionException e) {
            stop.set(true);
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new EvaluationException("an evaluation worker failed: " + cause, cause);
        } finally {
            // interrupts the workers, which kills their running programs; and waits for those kills, so that a caller
            // who stops next (a server closing its sandbox) never leaves a program running
            pool.shutdownNow();
            awaitWorkers(pool);
        }
        long wallMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
        return report(samples, List.of(results), wallMs, broken);
    }

    /** Waits up to {@link #WORKERS_STOP} for the workers to end, whether or not this thread was interrupted. */
    private static void awaitWorkers(ExecutorService pool) {
        boolean interrupted = Thread.interrupted();
        try {
            if (!pool.awaitTermination(WORKERS_STOP.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                log.warn("evaluation: a worker did not end within {} of being stopped", WORKERS_STOP);
            }
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private EvaluationReport report(List<Sample> samples, List<SampleResult> results, long wallMs, Map<String, String> broken) {
        Map<String, int[]> counts = new LinkedHashMap<>();
        Map<Verdict.Kind, Integer> verdicts = new EnumMap<>(Verdict.Kind.class);
        int passed = 0;
        List<SampleResult> all = new ArrayList<>(results.size());
        for (SampleResult r : results) {
            if (broken.containsKey(r.taskId())) {
                // judged before the problem was found broken (or ending earlier, e.g. on the code's own syntax
                // error): still not a verdict on the sample, since no sample of it could have passed
                all.add(notJudged(r.taskId(), r.sampleIndex(), broken.get(r.taskId()), r.wallMs()));
                continue;
            }
            all.add(r);
            int[] nc = counts.computeIfAbsent(r.taskId(), k -> new int[2]);
            nc[0]++;
            if (r.passed()) {
                nc[1]++;
                passed++;
            }
            verdicts.merge(r.verdict(), 1, Integer::sum);
        }
        List<PassAtK.Counts> perProblem = counts.values().stream().map(nc -> new PassAtK.Counts(nc[0], nc[1])).toList();
        return new EvaluationReport(counts.size(), samples.size(), passed, PassAtK.standard(perProblem), verdicts, all,
                wallMs, workers, new java.util.TreeMap<>(broken));
    }

    private static final String NOT_JUDGED = "not judged: ";

    /** A sample of a problem whose tests cannot load: the problem file's fault, reported once per problem. */
    private static SampleResult notJudged(String taskId, int index, String reason, long wallMs) {
        return new SampleResult(taskId, index, Verdict.Kind.INTERNAL_ERROR, NOT_JUDGED + reason, null, null, wallMs);
    }

    private SampleResult check(Problem problem, Task task, JudgeJob job, Sample sample, Map<String, String> broken) {
        String known = broken.get(sample.taskId());
        if (known != null) {
            return notJudged(sample.taskId(), sample.index(), known, 0);
        }
        if (sample.generationError() != null) {
            return new SampleResult(sample.taskId(), sample.index(), Verdict.Kind.INTERNAL_ERROR,
                    "no completion: " + sample.generationError(), null, null, 0);
        }
        long t0 = System.nanoTime();
        if (problem.format() == ProblemFormat.IO) {
            return checkIo(problem, sample, t0);
        }
        Submission submission;
        try {
            submission = judge.prepare(task, problem.code(sample.completion()), job);
        } catch (IllegalArgumentException e) {
            // the one thing a program can carry that no interpreter accepts: a NUL byte
            return new SampleResult(sample.taskId(), sample.index(), Verdict.Kind.SYNTAX_ERROR, e.getMessage(), null, null,
                    elapsedMs(t0));
        }
        Execution execution = execute(submission);
        if (execution.judgement() != null && execution.judgement().outcome() == JudgeReport.Outcome.TESTS) {
            // the judge found the tests unloadable before judging the code: the same for every sample of the problem
            String reason = execution.judgement().message();
            broken.putIfAbsent(sample.taskId(), reason);
            return notJudged(sample.taskId(), sample.index(), reason, elapsedMs(t0));
        }
        Verdict verdict = judge.judge(task, submission, execution);
        return new SampleResult(sample.taskId(), sample.index(), verdict.kind(), verdict.message(), verdict.error(),
                execution.outcome(), elapsedMs(t0));
    }

    /**
     * An IO problem: the completion runs once per test, its input on stdin, and passes when every output is the
     * test's; the first test that fails gives the verdict, named by its number. A compiled language compiles once.
     */
    private SampleResult checkIo(Problem problem, Sample sample, long t0) {
        Task first = problem.caseTask(problem.prompt(), 0, limits, 1);
        Submission submission;
        try {
            submission = judge.prepare(first, sample.completion());
        } catch (IllegalArgumentException e) {
            return new SampleResult(sample.taskId(), sample.index(), Verdict.Kind.SYNTAX_ERROR, e.getMessage(), null, null,
                    elapsedMs(t0));
        }
        Judgement judged;
        try {
            // the same IO check as judging given code: one run per case, compiled once, the first failing case decides
            judged = judgeCode.cases(first, submission, submission.request("", limits), problem.cases());
        } catch (InvalidRequestException e) {
            throw new EvaluationException("cannot evaluate: " + e.getMessage(), e);
        }
        Verdict verdict = judged.verdict();
        return new SampleResult(sample.taskId(), sample.index(), verdict.kind(), verdict.message(), verdict.error(),
                judged.execution().outcome(), elapsedMs(t0));
    }

    private Execution execute(Submission submission) {
        return execute(submission.request("", limits));
    }

    private Execution execute(ExecutionRequest request) {
        try {
            return executeCode.executeEach(request);
        } catch (InvalidRequestException e) {
            throw new EvaluationException("cannot evaluate: " + e.getMessage(), e);
        }
    }

    private static long elapsedMs(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private static ThreadFactory namedDaemons() {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "eval-worker-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Counts results as they arrive and tells the listener, one call at a time. */
    private static final class Tally {
        private final int total;
        private final long start;
        private final EvaluationListener listener;
        private int done;
        private int passed;

        Tally(int total, long start, EvaluationListener listener) {
            this.total = total;
            this.start = start;
            this.listener = listener;
        }

        synchronized void add(SampleResult result) {
            done++;
            if (result.passed()) {
                passed++;
            }
            try {
                listener.finished(result, new EvaluationProgress(done, total, passed, Duration.ofNanos(System.nanoTime() - start)));
            } catch (RuntimeException e) {
                log.warn("an evaluation listener failed: {}", e.toString());
            }
        }

        synchronized int done() {
            return done;
        }
    }
}
