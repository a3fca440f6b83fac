package dev.codeagent.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.submit.Evaluation;
import dev.codeagent.application.submit.EvaluationRefusedException;
import dev.codeagent.application.submit.EvaluationRequest;
import dev.codeagent.application.eval.ProblemFormat;
import dev.codeagent.application.submit.SubmitEvaluations;
import dev.codeagent.application.run.Caller;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Evaluations known to the server: {@code POST /v1/evaluations} takes problems and samples (the CLI's two files, each
 * line an object) and answers 202 at once, {@code GET /v1/evaluations[/{id}]} lists them and shows one (its report, in
 * the JSON the report page renders, once done), {@code DELETE /v1/evaluations/{id}} stops and forgets one.
 * {@link SubmitEvaluations} decides; this maps JSON and renders.
 */
final class EvaluationRoutes {

    private static final Pattern ID = Pattern.compile("ev-[0-9a-f]{1,16}");

    /** Body of {@code POST /v1/evaluations}. */
    record EvaluationBody(String subject, String format, List<JsonNode> problems, List<JsonNode> samples) {
    }

    private final SubmitEvaluations evaluations;
    private final JsonBodies bodies;
    private final IdempotentReplies replies;

    EvaluationRoutes(SubmitEvaluations evaluations, JsonBodies bodies, IdempotentReplies replies) {
        this.evaluations = evaluations;
        this.bodies = bodies;
        this.replies = replies;
    }

    void register(Router router) {
        router.route(HandlerType.POST, "/v1/evaluations", this::submit);
        router.route(HandlerType.GET, "/v1/evaluations", this::list);
        router.route(HandlerType.GET, "/v1/evaluations/{id}", this::get);
        router.route(HandlerType.DELETE, "/v1/evaluations/{id}", this::forget);
    }

    private void submit(Context ctx) {
        String text = bodies.jsonText(ctx);
        EvaluationBody body = bodies.strict(text, EvaluationBody.class);
        ProblemFormat format = null;
        if (body.format() != null) {
            try {
                format = ProblemFormat.fromId(body.format());
            } catch (IllegalArgumentException e) {
                throw ProblemException.invalid("format", e.getMessage());
            }
        }
        if (body.problems() == null) {
            throw ProblemException.invalid("problems", "required: a list of problem objects (HumanEval, MBPP or IO lines)");
        }
        if (body.samples() == null) {
            throw ProblemException.invalid("samples", "required: a list of {\"task_id\", \"completion\"} objects");
        }
        EvaluationRequest request = new EvaluationRequest(body.subject(), format, body.problems(), body.samples());
        Caller caller = RequestGuard.caller(ctx);
        replies.answer(ctx, text, () -> {
            Evaluation accepted;
            try {
                accepted = evaluations.submit(caller, request);
            } catch (EvaluationRefusedException e) {
                throw refusal(e);
            }
            return IdempotentReplies.json(202, "/v1/evaluations/" + accepted.id(), summary(accepted));
        });
    }

    private static ProblemException refusal(EvaluationRefusedException e) {
        if (e.busy()) {
            return ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), Duration.ofSeconds(30));
        }
        if (e.field() == null) {
            return new ProblemException(Type.CONFLICT, e.getMessage());
        }
        return ProblemException.invalid(e.field(), e.getMessage());
    }

    private void list(Context ctx) {
        ObjectNode body = Views.MAPPER.createObjectNode();
        ArrayNode list = body.putArray("evaluations");
        evaluations.list(RequestGuard.caller(ctx)).forEach(e -> list.add(summary(e)));
        Router.json(ctx, 200, body);
    }

    /** The evaluation named in the path, when the caller may see it; otherwise 404, the same as for none. */
    private Evaluation visible(Context ctx) {
        String id = ctx.pathParam("id");
        if (!ID.matcher(id).matches()) {
            throw new ProblemException(Type.NOT_FOUND, "no evaluation with that id");
        }
        return evaluations.find(RequestGuard.caller(ctx), id)
                .orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no evaluation with id '" + id + "'"));
    }

    private void get(Context ctx) {
        Router.json(ctx, 200, full(visible(ctx)));
    }

    private void forget(Context ctx) {
        Evaluation e = visible(ctx);
        evaluations.forget(RequestGuard.caller(ctx), e.id());
        ctx.status(204);
    }

    /** What a list shows of an evaluation: where it stands, and pass@1 once done. */
    static ObjectNode summary(Evaluation e) {
        ObjectNode n = Views.MAPPER.createObjectNode();
        n.put("id", e.id());
        n.put("status", e.status().name());
        n.put("subject", e.subject());
        n.put("problemCount", e.problems());
        n.put("sampleCount", e.samples());
        n.put("done", e.done());
        n.put("passed", e.passed());
        if (e.passAt1().isPresent()) {
            n.put("passAt1", e.passAt1().getAsDouble());
        } else {
            n.putNull("passAt1");
        }
        n.put("createdAt", Views.instant(e.createdAt()));
        n.put("endedAt", Views.instant(e.endedAt()));
        n.put("error", e.error());
        n.putObject("links").put("self", "/v1/evaluations/" + e.id());
        return n;
    }

    /**
     * One evaluation: its summary, and once done the report's JSON ({@code EvaluationReportView}, what
     * {@code report.js} renders, as the CLI's report file holds it) in the same object.
     */
    static ObjectNode full(Evaluation e) {
        ObjectNode n = summary(e);
        if (e.report() != null) {
            ObjectNode report = Views.MAPPER.valueToTree(e.report());
            report.fields().forEachRemaining(f -> n.set(f.getKey(), f.getValue()));
        }
        return n;
    }
}
