package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.codeagent.application.command.IdempotencyKeys;
import dev.codeagent.application.run.Caller;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;

/**
 * The {@code Idempotency-Key} header of {@code POST /v1/runs} and {@code POST /v1/executions}, mapped onto the
 * application's {@link IdempotencyKeys}: the key is the caller's (per API key), the request is its method, path and
 * body (as JSON: the order of fields and spaces do not count), and the answer kept is what was sent back. A replayed
 * answer carries {@code Idempotent-Replayed: true}; the same key with another request is a 422.
 */
final class IdempotentReplies {

    static final String HEADER = "Idempotency-Key";
    static final String REPLAYED = "Idempotent-Replayed";

    /** An answer as sent: its status, its Location (or null) and its JSON body. */
    record Reply(int status, String location, String json) {
    }

    private static final ObjectMapper CANONICAL = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private final IdempotencyKeys<Reply> keys;

    IdempotentReplies(IdempotencyKeys<Reply> keys) {
        this.keys = keys;
    }

    /**
     * Answers the request: with {@code answer}'s reply, done once per key when the request carries one.
     *
     * @param body the request's body as read (it has been validated: a refused request keeps no key)
     */
    void answer(Context ctx, String body, Supplier<Reply> answer) {
        String key = ctx.header(HEADER);
        if (key == null) {
            send(ctx, answer.get(), false);
            return;
        }
        String problem = IdempotencyKeys.problem(key);
        if (problem != null) {
            throw ProblemException.invalid(HEADER, problem);
        }
        Caller caller = RequestGuard.caller(ctx);
        try {
            IdempotencyKeys.Answer<Reply> a = keys.once(ExecutionGate.owner(caller), key, fingerprint(ctx, body), answer);
            send(ctx, a.value(), a.replayed());
        } catch (IdempotencyKeys.ConflictException e) {
            throw new ProblemException(Type.IDEMPOTENCY_KEY_REUSED, e.getMessage());
        } catch (dev.codeagent.domain.execution.ExecutionCancelledException e) {
            throw ProblemException.retryLater(Type.SHUTTING_DOWN, "the server is shutting down", java.time.Duration.ofSeconds(5));
        }
    }

    static Reply json(int status, String location, com.fasterxml.jackson.databind.JsonNode body) {
        try {
            return new Reply(status, location, Views.MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private static void send(Context ctx, Reply reply, boolean replayed) {
        if (reply.location() != null) {
            ctx.header("Location", reply.location());
        }
        if (replayed) {
            ctx.header(REPLAYED, "true");
        }
        ctx.status(reply.status());
        ctx.contentType("application/json");
        ctx.result(reply.json());
    }

    private static String fingerprint(Context ctx, String body) {
        String canonical;
        try {
            canonical = CANONICAL.writeValueAsString(CANONICAL.readValue(body, Object.class));
        } catch (JsonProcessingException e) {
            canonical = body;
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update((ctx.method().name() + " " + ctx.path() + "\n").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(canonical.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
