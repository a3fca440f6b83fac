package dev.codeagent.application.eval;

import dev.codeagent.application.execute.ExecuteCode;
import dev.codeagent.application.execute.InvalidRequestException;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.solving.Judge;
import dev.codeagent.domain.solving.Submission;
import dev.codeagent.domain.solving.Task;
import dev.codeagent.domain.solving.Verdict;
import jakarta.inject.Inject;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * Judges code given by its author, no model involved: the agent loop's {@link Judge} on a task's tests (Python, in the
 * split judge's process, which the code cannot read or write to), an expected output, or IO cases run one by one as an
 * evaluation runs them ({@link #cases}: a compiled language compiles once, the first failing case decides). Every run
 * goes through {@link ExecuteCode} (its policy, its size and language checks, its sandbox): a judgement is as isolated as
 * {@code exec}. Thread-safe.
 */
public final class JudgeCode {

    private final ExecuteCode executeCode;
    private final Judge judge = new Judge();

    @Inject
    public JudgeCode(ExecuteCode executeCode) {
        this.executeCode = Objects.requireNonNull(executeCode, "executeCode");
    }

    /**
     * Checks what can be checked without running, as {@link ExecuteCode#validate}.
     *
     * @throws dev.codeagent.application.execute.InvalidRequestException naming the field
     */
    public void validate(JudgeRequest request) {
        executeCode.validate(request.execution());
    }

    /**
     * Runs the code and judges it; the caller holds an execution place (a door's queue) or accepts waiting for one.
     *
     * @throws InvalidRequestException when the request cannot run here (its language, tests it cannot judge)
     * @throws dev.codeagent.domain.execution.ExecutionCancelledException when the calling thread is interrupted
     */
    public Judgement judge(JudgeRequest request) {
        Task task = request.task(0);
        String code = request.execution().program().source();
        Submission submission;
        try {
            submission = judge.prepare(task, code);
        } catch (IllegalArgumentException e) {
            // tests for a language without a judge: JudgeRequest.of refuses them, so only a request built around it lands here
            throw new InvalidRequestException("tests", e.getMessage());
        }
        ExecutionRequest run = request.execution().withJudging(submission.judging());
        if (request.cases().isEmpty()) {
            Execution execution = executeCode.executeEach(run);
            return new Judgement(judge.judge(task, submission, execution), execution);
        }
        return cases(task, submission, run, request.cases());
    }

    /**
     * IO cases: the program runs once per case, its input on stdin, each run made when the one before passed; the
     * first case that fails gives the verdict, named by its number ({@code test 2 of 3: …}) when there are several.
     *
     * @param first the task of the first case (its prompt and limits are every case's)
     */
    Judgement cases(Task first, Submission submission, ExecutionRequest request, List<Problem.IoCase> cases) {
        Iterator<Execution> runs = executeCode.executeEach(request, cases.stream().map(Problem.IoCase::input).toList());
        Verdict verdict = Verdict.accepted();
        Execution execution = null;
        for (int i = 0; i < cases.size() && verdict.isAccepted(); i++) {
            Problem.IoCase c = cases.get(i);
            Task task = new Task(first.prompt(), first.language(), null, c.output(), c.input(), first.limits(), 1);
            execution = runs.next();
            verdict = judge.judge(task, submission, execution);
            if (!verdict.isAccepted() && cases.size() > 1 && execution.outcome() != Outcome.COMPILATION_ERROR) {
                verdict = new Verdict(verdict.kind(), "test " + (i + 1) + " of " + cases.size() + ": " + verdict.message(),
                        verdict.error(), verdict.difference());
            }
        }
        return new Judgement(verdict, execution);
    }
}
