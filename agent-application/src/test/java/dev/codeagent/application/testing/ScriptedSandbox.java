package dev.codeagent.application.testing;

import dev.codeagent.domain.execution.CapturedOutput;
import dev.codeagent.domain.execution.Execution;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Isolation;
import dev.codeagent.domain.execution.JudgeReport;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.Outcome;
import dev.codeagent.domain.execution.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A sandbox for unit tests of orchestration: answers each request with what a function says and
 * remembers the requests. Never used where a real sandbox can run.
 */
public final class ScriptedSandbox implements Sandbox {

    public static final Isolation ISOLATION = new Isolation("scripted", Set.of(), Set.of());

    private final Function<ExecutionRequest, Execution> answer;
    private final List<ExecutionRequest> requests = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    public ScriptedSandbox(Function<ExecutionRequest, Execution> answer) {
        this.answer = answer;
    }

    public static Execution exited(int status, String stdout, String stderr) {
        return new Execution(status == 0 ? Outcome.OK : Outcome.RUNTIME_ERROR, status, null,
                new CapturedOutput(stdout, false), new CapturedOutput(stderr, false), Duration.ofMillis(5), null, null, null,
                ISOLATION);
    }

    /**
     * A clean exit of a program whose tests all passed: with the judge's passing report when the request was
     * judged, as a real sandbox's judge would give it.
     */
    public static Execution testsPassed(ExecutionRequest request, String stdout) {
        Execution e = exited(0, stdout, "");
        return request.judged() ? e.withJudgement(judged(JudgeReport.Outcome.PASSED, "")) : e;
    }

    /** A judge's report without a failing line, error or calls. */
    public static JudgeReport judged(JudgeReport.Outcome outcome, String message) {
        return new JudgeReport(outcome, message, null, null, List.of(), null);
    }

    public static Execution ended(Outcome outcome, String detail) {
        return new Execution(outcome, null, 9, CapturedOutput.EMPTY, CapturedOutput.EMPTY, Duration.ofMillis(5), null, null,
                detail, ISOLATION);
    }

    @Override
    public String tier() {
        return "scripted";
    }

    @Override
    public Set<Language> languages() {
        return Set.of(Language.PYTHON);
    }

    @Override
    public Isolation isolation() {
        return ISOLATION;
    }

    @Override
    public Execution execute(ExecutionRequest request) {
        requests.add(request);
        return answer.apply(request);
    }

    public List<ExecutionRequest> requests() {
        return requests;
    }

    public boolean closed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
