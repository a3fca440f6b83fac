package dev.codeagent.http;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.command.FieldErrors;
import dev.codeagent.application.eval.JudgeCode;
import dev.codeagent.application.eval.JudgeRequest;
import dev.codeagent.application.eval.Judgement;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.application.submit.SubmitExecutions;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.http.ProblemException.FieldError;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    private final int maxBatch;

    JudgementRoutes(ExecutionGate gate, JsonBodies bodies, ApiRequests requests, IdempotentReplies replies,
            SubmitExecutions submissions, JudgeCode judgeCode, Callbacks callbacks, int maxBatch) {
        this.gate = gate;
        this.bodies = bodies;
        this.requests = requests;
        this.replies = replies;
        this.submissions = submissions;
        this.judgeCode = judgeCode;
        this.callbacks = callbacks;
        this.maxBatch = maxBatch;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/judgements", this::judge);
        router.route(HandlerType.POST, "/v1/judgements/batch", this::batch);
        router.route(HandlerType.GET, "/v1/judgements", this::collect);
        router.route(HandlerType.GET, "/v1/judgements/{id}", this::find);
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
                String id = submit(caller, List.of(submission)).get(0);
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
        if (body.submissions() == null || body.submissions().isEmpty()) {
            throw ProblemException.invalid("submissions", "required: 1 to " + maxBatch + " judgements, each as POST /v1/judgements"
                    + " takes it");
        }
        if (body.submissions().size() > maxBatch) {
            throw ProblemException.invalid("submissions", "at most " + maxBatch + " judgements in one batch (http.maxBatchSize),"
                    + " got " + body.submissions().size());
        }
        List<SubmitExecutions.Submission> batch = new ArrayList<>();
        List<FieldError> errors = new ArrayList<>();
        for (int i = 0; i < body.submissions().size(); i++) {
            String prefix = "submissions[" + i + "]";
            JudgementBody one = body.submissions().get(i);
            if (one == null) {
                errors.add(new FieldError(prefix, "must be a judgement, not null"));
                continue;
            }
            if (one.waitForResult() != null) {
                errors.add(new FieldError(prefix + ".wait", "a batch is always collected later: leave wait out"));
                continue;
            }
            try {
                JudgeRequest request = request(one);
                gate.validate(request.execution());
                batch.add(submission(ctx, request, one.callbackUrl()));
            } catch (ProblemException e) {
                e.errors().forEach(f -> errors.add(new FieldError(prefix + "." + f.field(), f.message())));
                if (e.errors().isEmpty()) {
                    errors.add(new FieldError(prefix, e.getMessage()));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        Caller caller = RequestGuard.caller(ctx);
        replies.answer(ctx, text, () -> {
            ObjectNode answer = Views.MAPPER.createObjectNode();
            ArrayNode ids = answer.putArray("ids");
            submit(caller, batch).forEach(ids::add);
            return IdempotentReplies.json(202, null, answer);
        });
    }

    private List<String> submit(Caller caller, List<SubmitExecutions.Submission> batch) {
        try {
            return submissions.submitAll(caller, batch);
        } catch (OverloadedException e) {
            throw ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), e.retryAfter());
        }
    }

    private Optional<StoredExecution> found(Caller caller, String id) {
        return ID.matcher(id).matches() ? submissions.find(caller, id) : Optional.empty();
    }

    private void find(Context ctx) {
        String id = ctx.pathParam("id");
        StoredExecution s = found(RequestGuard.caller(ctx), id).orElseThrow(() -> new ProblemException(Type.NOT_FOUND,
                "no judgement with id '" + JsonBodies.abbreviate(id, 80) + "' (results are kept for http.resultsKeep after they end)"));
        Router.json(ctx, 200, Views.judgementSubmission(s));
    }

    private void collect(Context ctx) {
        String raw = ctx.queryParam("ids");
        if (raw == null || raw.isBlank()) {
            throw ProblemException.invalid("ids", "required: the ids to collect, separated by commas (at most " + maxBatch + ")");
        }
        List<String> ids = Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (ids.size() > maxBatch) {
            throw ProblemException.invalid("ids", "at most " + maxBatch + " ids at once (http.maxBatchSize), got " + ids.size());
        }
        Caller caller = RequestGuard.caller(ctx);
        ObjectNode answer = Views.MAPPER.createObjectNode();
        ArrayNode list = answer.putArray("judgements");
        for (String id : ids) {
            Optional<StoredExecution> s = found(caller, id);
            if (s.isPresent()) {
                list.add(Views.judgementSubmission(s.get()));
            } else {
                list.addObject().put("id", JsonBodies.abbreviate(id, 80)).put("status", "NOT_FOUND");
            }
        }
        Router.json(ctx, 200, answer);
    }
}
