package dev.codeagent.application.eval;

import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.Attempt;
import dev.codeagent.domain.solving.Run;
import dev.codeagent.domain.solving.RunListener;
import dev.codeagent.domain.solving.RunStatus;
import dev.codeagent.domain.solving.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Has a code generator write samples for problems, each through the agent loop: with no repair
 * attempts a run is one generation (retried only on transient generator failures); with {@code k}
 * repair attempts the loop may fix a failing sample up to {@code k} times, using the problem's tests
 * as its judge. Runs go on concurrently on a few workers.
 */
public final class GenerateSamples {

    /** Runs in a row that ended without any attempt before the generator is deemed unusable. */
    static final int GIVE_UP_AFTER = 3;

    private static final Logger log = LoggerFactory.getLogger(GenerateSamples.class);

    private final SolveTask solveTask;
    private final ResourceLimits limits;
    private final int workers;

    /**
     * @param solveTask the agent loop, over the generator and executor to use
     * @param limits what each attempt's program may consume
     * @param workers runs going on at once
     */
    public GenerateSamples(SolveTask solveTask, ResourceLimits limits, int workers) {
        this.solveTask = Objects.requireNonNull(solveTask, "solveTask");
        this.limits = Objects.requireNonNull(limits, "limits");
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, was " + workers);
        }
        this.workers = workers;
    }

    /**
     * Generates {@code samplesPerTask} samples for each problem.
     *
     * @param repairAttempts attempts the loop may add after a failing first one; 0 to {@link Task#MAX_ATTEMPTS_CAP} - 1
     * @throws EvaluationException when the generator keeps failing (a wrong key, an endpoint that is down)
     * @throws ExecutionCancelledException when the calling thread is interrupted
     */
    public GeneratedSamples generate(List<Problem> problems, int samplesPerTask, int repairAttempts, GenerationListener listener) {
        if (samplesPerTask < 1) {
            throw new IllegalArgumentException("samples per task must be at least 1, was " + samplesPerTask);
        }
        if (repairAttempts < 0 || repairAttempts >= Task.MAX_ATTEMPTS_CAP) {
            throw new IllegalArgumentException("repair attempts must be between 0 and " + (Task.MAX_ATTEMPTS_CAP - 1)
                    + ", was " + repairAttempts);
        }
        Objects.requireNonNull(listener, "listener");
        List<Job> jobs = new ArrayList<>();
        for (Problem p : problems) {
            Task task = p.generationTask(limits, 1 + repairAttempts);
            for (int i = 0; i < samplesPerTask; i++) {
                jobs.add(new Job(p, i, task));
            }
        }
        int n = jobs.size();
        Sample[] finals = new Sample[n];
        Sample[] firsts = new Sample[n];
        Progress progress = new Progress(n, listener);
        AtomicInteger next = new AtomicInteger();
        int threads = Math.max(1, Math.min(workers, n));
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "eval-generator");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < threads; w++) {
                running.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < n && !progress.givenUp(); i = next.getAndIncrement()) {
                        Job job = jobs.get(i);
                        Run run = solveTask.solve(SolveTask.newRunId(), job.task(), RunListener.NONE);
                        if (run.status() == RunStatus.CANCELLED) {
                            throw new ExecutionCancelledException("generation cancelled");
                        }
                        finals[i] = finalSample(job, run);
                        firsts[i] = firstSample(job, run);
                        progress.add(finals[i], run);
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutionCancelledException("generation cancelled");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException) {
                throw (RuntimeException) e.getCause();
            }
            throw new EvaluationException("a generation worker failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        if (progress.givenUp()) {
            throw new EvaluationException("the generator failed " + GIVE_UP_AFTER + " times in a row; last: " + progress.lastFailure());
        }
        int repaired = 0;
        List<Sample> finalList = List.of(finals);
        for (int i = 0; i < n; i++) {
            if (!finals[i].completion().equals(firsts[i].completion())) {
                repaired++;
            }
        }
        return new GeneratedSamples(finalList, List.of(firsts), repaired);
    }

    private static Sample finalSample(Job job, Run run) {
        for (int i = run.attempts().size() - 1; i >= 0; i--) {
            Attempt a = run.attempts().get(i);
            if (!a.code().isEmpty()) {
                return new Sample(job.taskId(), job.index(), job.problem().completionOf(a.code()));
            }
        }
        return noCode(job, run);
    }

    private static Sample firstSample(Job job, Run run) {
        if (run.attempts().isEmpty() || run.attempts().get(0).code().isEmpty()) {
            return noCode(job, run);
        }
        return new Sample(job.taskId(), job.index(), job.problem().completionOf(run.attempts().get(0).code()));
    }

    private static Sample noCode(Job job, Run run) {
        if (run.attempts().isEmpty()) {
            return new Sample(job.taskId(), job.index(), "", run.reason() == null ? "the run ended " + run.status() : run.reason());
        }
        return new Sample(job.taskId(), job.index(), "", "the model's reply held no code");
    }

    private record Job(Problem problem, int index, Task task) {
        String taskId() {
            return problem.taskId();
        }
    }

    /** Counts finished runs, notices a generator that keeps failing, tells the listener. */
    private static final class Progress {
        private final int total;
        private final GenerationListener listener;
        private int done;
        private int failuresInARow;
        private String lastFailure;
        private volatile boolean givenUp;

        Progress(int total, GenerationListener listener) {
            this.total = total;
            this.listener = listener;
        }

        synchronized void add(Sample sample, Run run) {
            done++;
            if (run.attempts().isEmpty() && run.status() == RunStatus.ERROR) {
                failuresInARow++;
                lastFailure = run.reason();
                if (failuresInARow >= GIVE_UP_AFTER) {
                    givenUp = true;
                }
            } else {
                failuresInARow = 0;
            }
            try {
                listener.generated(sample, run, done, total);
            } catch (RuntimeException e) {
                log.warn("a generation listener failed: {}", e.toString());
            }
        }

        boolean givenUp() {
            return givenUp;
        }

        synchronized String lastFailure() {
            return lastFailure;
        }
    }
}
