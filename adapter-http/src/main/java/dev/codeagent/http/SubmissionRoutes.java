package dev.codeagent.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.codeagent.application.execute.OverloadedException;
import dev.codeagent.application.run.Caller;
import dev.codeagent.application.submit.StoredExecution;
import dev.codeagent.application.submit.SubmitExecutions;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * What the routes of submitted work share (executions at {@code /v1/executions}, judgements at {@code /v1/judgements}): a
 * batch accepted whole or refused naming {@code submissions[i].field}, submitting through {@link SubmitExecutions},
 * one found by id and many collected by {@code ?ids=}, each kind by its own ids and in its own view.
 *
 * @param noun what one is called in messages ({@code execution}, {@code judgement})
 * @param ids the ids of this kind (another kind's id is, here, one that does not exist)
 * @param listName the field of a collection's answer ({@code executions}, {@code judgements})
 * @param view how one is shown
 */
record SubmissionRoutes(SubmitExecutions submissions, int maxBatch, String noun, Pattern ids, String listName,
        Function<StoredExecution, ObjectNode> view) {

    /** One body of a batch as a submission, or a ProblemException naming its fields. */
    interface Mapping<B> {
        SubmitExecutions.Submission submission(B body);
    }

    /**
     * The batch's submissions, every one mapped, or a 400 naming each wrong one as {@code submissions[i].field}.
     *
     * @param waits whether a body asked for {@code wait} (a batch never waits)
     */
    <B> List<SubmitExecutions.Submission> batch(List<B> bodies, Function<B, Boolean> waits, Mapping<B> mapping) {
        if (bodies == null || bodies.isEmpty()) {
            throw ProblemException.invalid("submissions", "required: 1 to " + maxBatch + " " + noun + "s, each as POST /v1/"
                    + noun + "s takes it");
        }
        if (bodies.size() > maxBatch) {
            throw ProblemException.invalid("submissions", "at most " + maxBatch + " " + noun + "s in one batch (http.maxBatchSize),"
                    + " got " + bodies.size());
        }
        List<SubmitExecutions.Submission> batch = new ArrayList<>();
        List<ProblemException.FieldError> errors = new ArrayList<>();
        for (int i = 0; i < bodies.size(); i++) {
            String prefix = "submissions[" + i + "]";
            B one = bodies.get(i);
            if (one == null) {
                errors.add(new ProblemException.FieldError(prefix, "must be an object as POST /v1/" + noun + "s takes it, not null"));
                continue;
            }
            if (waits.apply(one) != null) {
                errors.add(new ProblemException.FieldError(prefix + ".wait", "a batch is always collected later: leave wait out"));
                continue;
            }
            try {
                batch.add(mapping.submission(one));
            } catch (ProblemException e) {
                e.errors().forEach(f -> errors.add(new ProblemException.FieldError(prefix + "." + f.field(), f.message())));
                if (e.errors().isEmpty()) {
                    errors.add(new ProblemException.FieldError(prefix, e.getMessage()));
                }
            }
        }
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        return batch;
    }

    /** Accepts the submissions; their ids in order. @throws ProblemException 503 past {@code http.maxPendingSubmissions} */
    List<String> submit(Caller caller, List<SubmitExecutions.Submission> batch) {
        try {
            return submissions.submitAll(caller, batch);
        } catch (OverloadedException e) {
            throw ProblemException.retryLater(Type.OVERLOADED, e.getMessage(), e.retryAfter());
        }
    }

    /** The batch's answer: its ids, in order. */
    static ObjectNode accepted(List<String> submitted) {
        ObjectNode answer = Views.MAPPER.createObjectNode();
        ArrayNode ids = answer.putArray("ids");
        submitted.forEach(ids::add);
        return answer;
    }

    private Optional<StoredExecution> found(Caller caller, String id) {
        return ids.matcher(id).matches() ? submissions.find(caller, id) : Optional.empty();
    }

    /** {@code GET …/{id}}: the caller's own (any for an operator), or 404. */
    void find(Context ctx) {
        String id = ctx.pathParam("id");
        StoredExecution s = found(RequestGuard.caller(ctx), id).orElseThrow(() -> new ProblemException(Type.NOT_FOUND, "no "
                + noun + " with id '" + JsonBodies.abbreviate(id, 80) + "' (results are kept for http.resultsKeep after they end)"));
        Router.json(ctx, 200, view.apply(s));
    }

    /** {@code GET …?ids=a,b}: each in its place, one that is not found as {@code NOT_FOUND}. */
    void collect(Context ctx) {
        String raw = ctx.queryParam("ids");
        if (raw == null || raw.isBlank()) {
            throw ProblemException.invalid("ids", "required: the ids to collect, separated by commas (at most " + maxBatch + ")");
        }
        List<String> asked = Arrays.stream(raw.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (asked.size() > maxBatch) {
            throw ProblemException.invalid("ids", "at most " + maxBatch + " ids at once (http.maxBatchSize), got " + asked.size());
        }
        Caller caller = RequestGuard.caller(ctx);
        ObjectNode answer = Views.MAPPER.createObjectNode();
        ArrayNode list = answer.putArray(listName);
        for (String id : asked) {
            Optional<StoredExecution> s = found(caller, id);
            if (s.isPresent()) {
                list.add(view.apply(s.get()));
            } else {
                // one unknown id does not spoil the others: it is answered in its place
                list.addObject().put("id", JsonBodies.abbreviate(id, 80)).put("status", "NOT_FOUND");
            }
        }
        Router.json(ctx, 200, answer);
    }
}
