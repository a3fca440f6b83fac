package dev.codeagent.application.command;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Requests made safe to retry, as Stripe's {@code Idempotency-Key} does it: the first request with a key is done and
 * its answer kept; a request with the same key and the same request again (a client that timed out and retries) gets
 * that answer and starts nothing; the same key with another request is refused ({@link ConflictException}), since
 * the key would otherwise hide that the second request never ran.
 *
 * <p>Keys are per owner (an API key's name): one owner's key never answers another's request. A retry that comes
 * while the first is still being done waits for its answer. Only answers are kept: a first request that failed (the
 * supplier threw: refused, overloaded, stopped) leaves no trace, so its retry is done afresh. Answers are kept for
 * {@code keep}, and at most {@code maxKeys} of them (the oldest go first); kept in memory, a server's restart forgets
 * them.
 *
 * @param <T> the answer kept
 */
public final class IdempotencyKeys<T> {

    /** The same key came with another request. */
    public static final class ConflictException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ConflictException(String message) {
            super(message);
        }
    }

    /**
     * An answer, and whether it is the first request's kept one.
     *
     * @param replayed true when the request was not done again: this is the first request's answer
     */
    public record Answer<T>(T value, boolean replayed) {
    }

    /** Longest key accepted (Stripe's limit). */
    public static final int MAX_KEY_LENGTH = 255;

    private record Entry<T>(String fingerprint, CompletableFuture<T> answer, Instant at) {
    }

    private final Duration keep;
    private final int maxKeys;
    private final Clock clock;
    private final Map<String, Entry<T>> entries = new LinkedHashMap<>();

    public IdempotencyKeys(Duration keep, int maxKeys, Clock clock) {
        if (keep.isNegative() || keep.isZero()) {
            throw new IllegalArgumentException("keep must be positive");
        }
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be at least 1");
        }
        this.keep = keep;
        this.maxKeys = maxKeys;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * What is wrong with a key as a client sent it, or null when it can be used: 1 to {@value #MAX_KEY_LENGTH}
     * printable ASCII characters (a UUID, say).
     */
    public static String problem(String key) {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            return "must be 1 to " + MAX_KEY_LENGTH + " characters (a UUID, say), was " + key.length();
        }
        if (!key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            return "must be printable ASCII without spaces (a UUID, say)";
        }
        return null;
    }

    /**
     * Does {@code request} once per ({@code owner}, {@code key}): the first time it is done, afterwards its answer is
     * given again.
     *
     * @param fingerprint what the request was (a hash of its method, path and body): the same key with another one is
     *     a {@link ConflictException}
     * @throws ConflictException when the key was used with another request
     * @throws IllegalArgumentException when the key is not usable ({@link #problem})
     */
    public Answer<T> once(String owner, String key, String fingerprint, Supplier<T> request) {
        String problem = problem(key);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        String id = owner + "\n" + key;
        while (true) {
            CompletableFuture<T> mine;
            Entry<T> earlier;
            synchronized (entries) {
                forget(false);
                earlier = entries.get(id);
                if (earlier != null && !earlier.fingerprint().equals(fingerprint)) {
                    throw new ConflictException("the Idempotency-Key '" + key + "' was used with another request (another"
                            + " body or endpoint); send a new key for a new request");
                }
                mine = null;
                if (earlier == null) {
                    forget(true);
                    mine = new CompletableFuture<>();
                    entries.put(id, new Entry<>(fingerprint, mine, clock.instant()));
                }
            }
            if (mine == null) {
                try {
                    return new Answer<>(earlier.answer().get(), true);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new dev.codeagent.domain.execution.ExecutionCancelledException(
                            "cancelled while waiting for the first request with this Idempotency-Key");
                } catch (ExecutionException e) {
                    // the first failed and left no trace: this one is done afresh
                    continue;
                }
            }
            try {
                T value = request.get();
                mine.complete(value);
                return new Answer<>(value, false);
            } catch (RuntimeException | Error e) {
                synchronized (entries) {
                    entries.remove(id);
                }
                mine.completeExceptionally(e);
                throw e;
            }
        }
    }

    /** Keys kept now (answers and requests being done). */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    /**
     * Drops the answers older than {@code keep}, and with {@code makeRoom} the oldest answers beyond {@code maxKeys - 1};
     * entries are in age order. A request still being done keeps its key: its retry must find it.
     */
    private void forget(boolean makeRoom) {
        Instant oldest = clock.instant().minus(keep);
        int over = makeRoom ? entries.size() - maxKeys + 1 : 0;
        Iterator<Entry<T>> it = entries.values().iterator();
        while (it.hasNext()) {
            Entry<T> e = it.next();
            boolean expired = e.at().isBefore(oldest);
            if (!expired && over <= 0) {
                return;
            }
            if (e.answer().isDone()) {
                it.remove();
                over--;
            }
        }
    }
}
