package dev.codeagent.application.eval;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.solve.SolveTask;
import dev.codeagent.application.store.InMemoryRunLog;
import dev.codeagent.domain.execution.ExecutionCancelledException;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.solving.RunLog;
import dev.codeagent.domain.solving.Task;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A benchmark from problems to pass@k: take the samples (given, the reference solutions, or written by
 * a generator through the agent loop), evaluate them in the sandbox, and when the loop could repair
 * samples, evaluate the first attempts too so the repair's gain is measured; each result goes to the
 * results file as it is judged.
 */
public final class RunBenchmark {

    /**
     * What to run.
     *
     * @param problems the problems and their tests
     * @param samples the samples to check, or null: the references, or generated ones
     * @param generation how to generate samples, or null to check given samples or the references
     * @param workers programs run at once
     */
    public record Command(ProblemSet problems, SampleSet samples, Generation generation, int workers) {

        public Command {
            Objects.requireNonNull(problems, "problems");
            if (samples != null && generation != null) {
                throw new IllegalArgumentException("check given samples or generate them, not both");
            }
            if (workers < 1) {
                throw new IllegalArgumentException("workers must be at least 1, was " + workers);
            }
        }

        /** Without samples or a generator the references are checked: a self-test of the dataset and the sandbox. */
        public boolean checksReferences() {
            return samples == null && generation == null;
        }
    }

    /**
     * Samples written by the generator.
     *
     * @param samplesPerTask samples per problem, at least 1
     * @param repairAttempts attempts the loop may add after a failing first one, 0 to {@link Task#MAX_ATTEMPTS_CAP} - 1
     */
    public record Generation(int samplesPerTask, int repairAttempts) {

        public Generation {
            if (samplesPerTask < 1) {
                throw new IllegalArgumentException("samples per task must be at least 1, was " + samplesPerTask);
            }
            if (repairAttempts < 0 || repairAttempts >= Task.MAX_ATTEMPTS_CAP) {
                throw new IllegalArgumentException("repair attempts must be between 0 and " + (Task.MAX_ATTEMPTS_CAP - 1)
                        + ", was " + repairAttempts);
            }
        }
    }

    /**
     * How it went.
     *
     * @param report the checked samples (after repair, for generated ones)
     * @param beforeRepair the first attempts of generated samples, or null when nothing could be repaired
     * @param generated the generated samples, or null
     * @param sandbox the sandbox tier the programs ran in
     * @param checked the samples {@code report} judged, in its order: the code a report shows beside each result
     */
    public record Result(EvaluationReport report, EvaluationReport beforeRepair, GeneratedSamples generated, String sandbox,
            List<Sample> checked) {

        public Result {
            checked = List.copyOf(checked);
        }
    }

    /** Hears the benchmark's progress, one call at a time. Must be quick. */
    public interface Listener {

        Listener NONE = new Listener() { };

        /** A generated sample's run has ended. */
        default void generating(int done, int total) {
        }

        /** Generation is over; evaluation comes next. */
        default void generated() {
        }

        /** A sample of the reported evaluation has been judged. */
        default void evaluated(EvaluationProgress progress) {
        }
    }

    private final ExecuteCode executeCode;
    private final Function<RunLog, SolveTask> loops;
    private final ResourceLimits limits;

    /**
     * @param executeCode runs every program
     * @param loops the agent loop recording to a given run log; asked only when samples are generated
     * @param limits what each program may consume
     */
    public RunBenchmark(ExecuteCode executeCode, Function<RunLog, SolveTask> loops, ResourceLimits limits) {
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
        this.loops = Objects.requireNonNull(loops, "loops");
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /**
     * Runs the benchmark; blocks until every sample is judged.
     *
     * @throws EvaluationException when the generator keeps failing, the sandbox cannot run Python, or
     *     the results file could not be written
     * @throws ExecutionCancelledException when the calling thread is interrupted
     */
    public Result run(Command command, ResultLines out, Listener listener) {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(listener, "listener");
        List<Problem> problems = command.problems().problems();
        EvaluateSamples evaluate = new EvaluateSamples(executeCode, limits, command.workers());
        GeneratedSamples generated = null;
        List<Sample> toCheck;
        if (command.generation() != null) {
            Generation g = command.generation();
            // a benchmark's runs are scratch work, not anyone's history: they stay out of the configured run log
            SolveTask loop = loops.apply(new InMemoryRunLog());
            generated = new GenerateSamples(loop, limits, command.workers()).generate(problems, g.samplesPerTask(),
                    g.repairAttempts(), (sample, run, done, total) -> listener.generating(done, total));
            listener.generated();
            toCheck = generated.samples();
            out.withCompletions(toCheck);
        } else {
            toCheck = command.samples() != null ? command.samples().samples() : command.problems().referenceSamples();
        }
        EvaluationReport before = null;
        if (generated != null && command.generation().repairAttempts() > 0) {
            before = evaluate.evaluate(problems, generated.firstAttempts(), EvaluationListener.NONE);
        }
        EvaluationReport report = evaluate.evaluate(problems, toCheck, (result, progress) -> {
            out.write(result);
            listener.evaluated(progress);
        });
        out.finish();
        return new Result(report, before, generated, executeCode.sandbox().tier(), toCheck);
    }
}
