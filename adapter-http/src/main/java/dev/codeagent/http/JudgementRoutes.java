package dev.codeagent.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.eval.JudgeCode;
import dev.codeagent.application.eval.JudgeRequest;
import dev.codeagent.application.eval.Judgement;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.application.submit.SubmitExecutions;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.http.ProblemException.FieldError;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code POST /v1/judgements}: judge given code (no model) by a task's tests, an expected output or IO cases, and answer
 * the verdict with its analysis ({@link JudgeCode} decides; this maps JSON and renders). The same places, caps,
 * asynchronous answers ({@code "wait": false}: 202 + Location), batches ({@code POST /v1/judgements/batch}), callbacks and
 * {@code Idempotency-Key} as {@code /v1/executions}, through the same {@link ExecutionGate}, {@link SubmitExecutions} and
 * {@link IdempotentReplies}; collected at {@code GET /v1/judgements/{id}} and {@code GET /v1/judgements?ids=…}.
 *
 * <p>A route of its own rather than a {@code judge} object on {@code /v1/executions}: a judgement's answer is a verdict,
 * not one execution (IO cases are many runs), its body is checked differently (exactly one of tests, expectedOutput,
 * cases), and the executions' schema stays what its clients (and its streamed form) know.
 */
final class JudgementRoutes {

    private static final Pattern ID = Pattern.compile(StoredExecution.JUDGEMENT_PREFIX + "[A-Za-z0-9_-]{1,64}");

    /**
     * Body of {@code POST /v1/judgements}: the program as {@code POST /v1/executions} takes it (no args or files) and
     * exactly one of {@code tests}, {@code expectedOutput}, {@code cases}.
     */
    record JudgementBody(String language, String code, String stdin, Map<String, Object> limits,
            Map<String, Object> compileLimits, String tests, String expectedOutput, List<CaseBody> cases,
            @JsonProperty("wait") Boolean waitForResult, String callbackUrl) {
    }

    /** One IO case: the program's stdin ({@code input}, default none) and what it must print ({@code output}). */
    record CaseBody(String input, String output) {
    }

    /** Body of {@code POST /v1/judgements/batch}. */
    record BatchBody(List<JudgementBody> submissions) {
    }

    private final ExecutionGate gate;
    private final JsonBodies bodies;
    private final ApiRequests requests;
    private final IdempotentReplies replies;
    private final SubmitExecutions submissions;
    private final JudgeCode judgeCode;
    private final Callbacks callbacks;
    private final SubmissionRoutes routes;

    JudgementRoutes(ExecutionGate gate, JsonBodies bodies, ApiRequests requests, IdempotentReplies replies,
            SubmitExecutions submissions, JudgeCode judgeCode, Callbacks callbacks, int maxBatch) {
        this.gate = gate;
        this.bodies = bodies;
        this.requests = requests;
        this.replies = replies;
        this.submissions = submissions;
        this.judgeCode = judgeCode;
        this.callbacks = callbacks;
        this.routes = new SubmissionRoutes(submissions, maxBatch, "judgement", ID, "judgements", Views::judgementSubmission);
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/judgements", this::judge);
        router.route(HandlerType.POST, "/v1/judgements/batch", this::batch);
        router.route(HandlerType.GET, "/v1/judgements", routes::collect);
        router.route(HandlerType.GET, "/v1/judgements/{id}", routes::find);
    }

    private void judge(Context ctx) {
        String text = bodies.jsonText(ctx);
        JudgementBody body = bodies.strict(text, JudgementBody.class);
        JudgeRequest request = request(body);
        gate.validate(request.execution());
        Caller caller = RequestGuard.caller(ctx);
        if (Boolean.FALSE.equals(body.waitForResult()) || ExecutionRoutes.prefersAsync(ctx)) {
            SubmitExecutions.Submission submission = submission(ctx, request, body.callbackUrl());
            replies.answer(ctx, text, () -> {
                String id = routes.submit(caller, List.of(submission)).get(0);
                StoredExecution accepted = submissions.find(caller, id).orElseThrow();
                return IdempotentReplies.json(202, "/v1/judgements/" + id, Views.judgementSubmission(accepted));
            });
            return;
        }
        if (body.callbackUrl() != null) {
            throw ProblemException.invalid("callbackUrl", "a callback is for a judgement answered later: add \"wait\": false"
                    + " (or Prefer: respond-async), or leave callbackUrl out");
        }
        replies.answer(ctx, text, () -> {
            Judgement judged = gate.hold(caller, () -> judgeCode.judge(request));
            gate.counted(judged.execution(), "judgements");
            return IdempotentReplies.json(200, null, Views.judgement(judged.verdict(), judged.execution()));
        });
    }

    /** The application's request for a body: every wrong field named at once. @throws ProblemException 400 */
    private JudgeRequest request(JudgementBody body) {
        FieldErrors errors = new FieldErrors();
        ExecutionRequest execution = null;
        ProblemException refused = null;
        try {
            execution = requests.execution(new ApiRequests.ExecutionBody(body.language(), body.code(), body.stdin(), null, null,
                    body.limits(), body.compileLimits(), null, null));
        } catch (ProblemException e) {
            refused = e;
            e.errors().forEach(f -> errors.add(f.field(), f.message()));
        }
        List<JudgeRequest.Case> cases = body.cases() == null ? null
                : body.cases().stream().map(c -> c == null ? null : new JudgeRequest.Case(c.input(), c.output())).toList();
        JudgeRequest request = JudgeRequest.of(execution, body.tests(), body.expectedOutput(), cases, errors);
        if (request != null) {
            return request;
        }
        if (refused != null && errors.list().size() == refused.errors().size()) {
            // only the program was wrong: its problem as /v1/executions words it (an unsupported language lists the others)
            throw refused;
        }
        throw ProblemException.invalid(errors.list().stream().map(e -> new FieldError(e.field(), e.message())).toList());
    }

    private SubmitExecutions.Submission submission(Context ctx, JudgeRequest request, String callbackUrl) {
        if (callbackUrl == null) {
            return SubmitExecutions.Submission.judgement(judgeCode, request, null);
        }
        Callbacks.Target target = callbacks.target(callbackUrl, ctx.attribute(RequestGuard.KEY_NAME), "callbackUrl");
        return SubmitExecutions.Submission.judgement(judgeCode, request, done -> callbacks.deliver(target, done));
    }

    private void batch(Context ctx) {
        String text = bodies.jsonText(ctx);
        BatchBody body = bodies.strict(text, BatchBody.class);
        List<SubmitExecutions.Submission> batch = routes.batch(body.submissions(), JudgementBody::waitForResult, one -> {
            JudgeRequest request = request(one);
            gate.validate(request.execution());
            return submission(ctx, request, one.callbackUrl());
        });
        Caller caller = RequestGuard.caller(ctx);
        replies.answer(ctx, text, () -> IdempotentReplies.json(202, null, SubmissionRoutes.accepted(routes.submit(caller, batch))));
    }
}
