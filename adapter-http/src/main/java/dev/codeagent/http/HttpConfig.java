package dev.codeagent.http;

import com.fasterxml.jackson.annotation.JsonCreator;
import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.config.CodeAgentConfig;
import dev.codeagent.application.config.Units;
import dev.codeagent.application.spi.ConfigSection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTTP API server: config section {@code http}, which this front door owns.
 *
 * @param host the address to bind; loopback unless set otherwise
 * @param port the port; 0 picks a free one
 * @param auth API keys; auth is on unless turned off explicitly
 * @param rateLimitPerMinute requests one key may make per minute (a key may set its own)
 * @param maxBodyBytes the largest request body accepted; larger ones get 413
 * @param maxHeaderBytes the largest request head (request line and headers); larger ones get 431
 * @param requestTimeout how long a connection may stay silent while a client sends its request
 *     (the idle timeout that cuts off slow clients)
 * @param shutdownGrace how long in-flight work may go on after a shutdown starts; then it is cancelled
 * @param maxConcurrentExecutions executions the API runs at once; 0 means {@code sandbox.maxConcurrent}.
 *     Beyond it an execution ({@code /v1/executions}, Piston's) waits for a place, the keys served in turn
 * @param maxQueuedExecutions executions that may wait for a place at once (each holds its connection open); one
 *     more is refused with 503; 0 refuses at once when every place is busy
 * @param executionQueueWait how long a queued execution waits for a place before it gets 503
 * @param maxConcurrentRuns agent runs going at once; more are refused with 503
 * @param maxEventStreams open event streams ({@code /v1/runs/{id}/events}) at once; more get 503
 * @param maxTimeout the longest wall time a request may ask for
 * @param maxMemory the most memory a request may ask for
 * @param maxSessions sessions ({@code /v1/sessions}: a kernel and a sandbox each, for their whole life) live at
 *     once; one more is refused with 503; 0 turns sessions off
 * @param sessionPool sessions kept started ahead (with the default limits) once one has been asked for, so that
 *     the next open does not wait for a kernel to start; they do not count against {@code maxSessions}; 0: none
 * @param sessionOutputBudget what one session's notebook ({@code GET /v1/sessions/{id}/notebook}) holds of its cells'
 *     sources and outputs, in characters; past it the oldest outputs are dropped and the notebook says so. Bounds
 *     the heap a key's sessions take: {@code maxSessions} times this (twice that for text outside Latin-1); at least 64k
 * @param maxSessionsPerKey sessions one key may hold at once, so that one key cannot take every place of
 *     {@code maxSessions} from the others; 0 (the default): half of {@code maxSessions} (at least 1) when two or more
 *     keys are configured, all of them with one key or auth off (see {@link #sessionsPerKey()})
 * @param maxConcurrentRunsPerKey runs one key may have going at once, by the same rule against
 *     {@code maxConcurrentRuns} (see {@link #runsPerKey()})
 * @param idempotencyKeep how long the answer to a request sent with an {@code Idempotency-Key} is kept for its retries
 *     (Stripe's convention: 24h); kept in memory, at most {@value #MAX_IDEMPOTENCY_KEYS} answers
 * @param maxBatchSize submissions one {@code POST /v1/executions/batch} may carry
 * @param maxPendingSubmissions submissions (batched or asynchronous) accepted and not yet finished, all keys together;
 *     past it a submission is refused with 503
 * @param resultsKeep how long a submission's result is kept for {@code GET /v1/executions/{id}}
 * @param callbackHosts the hosts ({@code host} or {@code host:port}) a submission's {@code callbackUrl} may name; none
 *     by default, so that a callback cannot be aimed at internal services unless an operator allows its host
 */
public record HttpConfig(
        String host,
        int port,
        Auth auth,
        int rateLimitPerMinute,
        ByteSize maxBodyBytes,
        ByteSize maxHeaderBytes,
        Duration requestTimeout,
        Duration shutdownGrace,
        int maxConcurrentExecutions,
        int maxQueuedExecutions,
        Duration executionQueueWait,
        int maxConcurrentRuns,
        int maxEventStreams,
        Duration maxTimeout,
        ByteSize maxMemory,
        int maxSessions,
        int sessionPool,
        ByteSize sessionOutputBudget,
        int maxSessionsPerKey,
        int maxConcurrentRunsPerKey,
        Duration idempotencyKeep,
        int maxBatchSize,
        int maxPendingSubmissions,
        Duration resultsKeep,
        List<String> callbackHosts) {

    /** Answers kept for {@code Idempotency-Key} retries at most (each is one answer's JSON, a few KiB). */
    public static final int MAX_IDEMPOTENCY_KEYS = 10_000;

    /** The endpoint groups a key can be allowed: {@code POST /v1/executions}, {@code /v1/runs…}, {@code /api/v2/…}, {@code /metrics}. */
    public static final Set<String> ENDPOINT_GROUPS = Set.of("executions", "runs", "evaluations", "sessions", "piston", "metrics",
            "mcp");

    /**
     * The group that makes a key an operator: named among a key's groups, it lets the key see and cancel every
     * run (another key's, the CLI's, one that belongs to no one), where any other key sees only its own. It opens
     * no endpoints by itself: a key naming only {@code admin} may use every group, as a key naming none may.
     */
    public static final String OPERATOR_GROUP = "admin";

    private static final String QUEUE_INSTEAD = "sandbox.kind: queue (runs and executions then go to the workers of the"
            + " shared store; see docs/scaling-out.md)";

    /** Where these settings live in the config. */
    public static final ConfigSection<HttpConfig> SECTION = new ConfigSection<>("http", HttpConfig.class, defaults())
            // where work runs is the sandbox's choice now, for every door: one key instead of one per door
            .withRetired("runsOn", QUEUE_INSTEAD)
            .withRetired("executionsOn", QUEUE_INSTEAD);

    public HttpConfig {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("http.host must not be empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("http.port must be between 0 and 65535, was " + port);
        }
        Objects.requireNonNull(auth, "http.auth");
        positive("http.rateLimitPerMinute", rateLimitPerMinute);
        Objects.requireNonNull(maxBodyBytes, "http.maxBodyBytes");
        if (maxBodyBytes.bytes() < 1024) {
            throw new IllegalArgumentException("http.maxBodyBytes must be at least 1k, was " + maxBodyBytes);
        }
        Objects.requireNonNull(maxHeaderBytes, "http.maxHeaderBytes");
        if (maxHeaderBytes.bytes() < 1024 || maxHeaderBytes.bytes() > 1024 * 1024) {
            throw new IllegalArgumentException("http.maxHeaderBytes must be between 1k and 1m, was " + maxHeaderBytes);
        }
        positive("http.requestTimeout", requestTimeout);
        if (sessionPool < 0 || sessionPool > 16) {
            throw new IllegalArgumentException("http.sessionPool must be between 0 and 16, was " + sessionPool);
        }
        sessionOutputBudget = sessionOutputBudget == null ? ByteSize.ofMiB(8) : sessionOutputBudget;
        if (sessionOutputBudget.bytes() < 64 * 1024) {
            throw new IllegalArgumentException("http.sessionOutputBudget must be at least 64k, was " + sessionOutputBudget);
        }
        if (maxSessionsPerKey < 0) {
            throw new IllegalArgumentException("http.maxSessionsPerKey must be 0 (half of http.maxSessions) or more, was "
                    + maxSessionsPerKey);
        }
        if (maxConcurrentRunsPerKey < 0) {
            throw new IllegalArgumentException("http.maxConcurrentRunsPerKey must be 0 (half of http.maxConcurrentRuns) or more,"
                    + " was " + maxConcurrentRunsPerKey);
        }
        if (maxSessions < 0) {
            throw new IllegalArgumentException("http.maxSessions must not be negative (0 turns sessions off), was " + maxSessions);
        }
        Objects.requireNonNull(shutdownGrace, "http.shutdownGrace");
        if (shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("http.shutdownGrace must not be negative");
        }
        if (maxConcurrentExecutions < 0) {
            throw new IllegalArgumentException("http.maxConcurrentExecutions must be 0 (use sandbox.maxConcurrent) or more, was "
                    + maxConcurrentExecutions);
        }
        if (maxQueuedExecutions < 0) {
            throw new IllegalArgumentException("http.maxQueuedExecutions must be 0 (refuse at once) or more, was "
                    + maxQueuedExecutions);
        }
        positive("http.executionQueueWait", executionQueueWait);
        positive("http.maxConcurrentRuns", maxConcurrentRuns);
        positive("http.maxEventStreams", maxEventStreams);
        positive("http.maxTimeout", maxTimeout);
        positive("http.idempotencyKeep", idempotencyKeep);
        if (maxBatchSize < 1 || maxBatchSize > 1000) {
            throw new IllegalArgumentException("http.maxBatchSize must be between 1 and 1000, was " + maxBatchSize);
        }
        positive("http.maxPendingSubmissions", maxPendingSubmissions);
        positive("http.resultsKeep", resultsKeep);
        callbackHosts = callbackHosts == null ? List.of() : callbackHosts.stream().map(h -> h.trim().toLowerCase(Locale.ROOT))
                .toList();
        for (String h : callbackHosts) {
            if (h.isEmpty() || h.contains("/") || h.contains("@")) {
                throw new IllegalArgumentException("http.callbackHosts: '" + h + "' is not a host or host:port");
            }
        }
        Objects.requireNonNull(maxMemory, "http.maxMemory");
        if (maxMemory.bytes() < 16L * 1024 * 1024) {
            throw new IllegalArgumentException("http.maxMemory must be at least 16m, was " + maxMemory);
        }
    }

    /**
     * @param enabled false only for local use; then every request is allowed (the server logs a warning)
     * @param keys the accepted keys; with auth enabled and no keys the server refuses to start
     */
    public record Auth(boolean enabled, List<ApiKey> keys) {
        public Auth {
            keys = keys == null ? List.of() : List.copyOf(keys);
        }
    }

    /**
     * An API key, stored only as its SHA-256. In config either an object or, handy in environment
     * variables, the text {@code name:sha256} or {@code name:sha256:group+group}.
     *
     * @param name who holds the key, for logs and metrics; also the key's identity: runs and sessions belong to the
     *     name (two entries with one name, a key being rotated, share them)
     * @param sha256 the hex SHA-256 of the key (the key itself is never stored); compared in constant time
     * @param endpoints the endpoint groups the key may use (see {@link #ENDPOINT_GROUPS}); none: all; and
     *     {@link #OPERATOR_GROUP} for a key that sees every run
     * @param rateLimitPerMinute this key's own rate limit, or null for {@code http.rateLimitPerMinute}
     * @param callbackSecret what the callbacks of this key's submissions are signed with (HMAC-SHA256 of the body);
     *     null: the key cannot ask for callbacks
     */
    public record ApiKey(String name, String sha256, List<String> endpoints, Integer rateLimitPerMinute, String callbackSecret) {

        /** A key without a callback secret. */
        public ApiKey(String name, String sha256, List<String> endpoints, Integer rateLimitPerMinute) {
            this(name, sha256, endpoints, rateLimitPerMinute, null);
        }

        private static final Pattern HEX64 = Pattern.compile("[0-9a-fA-F]{64}");
        /**
         * The SHA-256 of the empty text: what hashing an unset variable gives. Only a key's hash is configured, so its
         * length and randomness cannot be checked here; this one mistake can be.
         */
        private static final String EMPTY_KEY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

        public ApiKey {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("http.auth.keys: every key needs a name");
            }
            if (name.length() > 200 || name.chars().anyMatch(Character::isISOControl)) {
                // the name is what the key's runs are recorded as
                throw new IllegalArgumentException("http.auth.keys: a key's name must be at most 200 characters,"
                        + " without control characters");
            }
            if (sha256 == null || !HEX64.matcher(sha256).matches()) {

                throw new IllegalArgumentException("http.auth.keys: key '" + name
                        + "' needs sha256 = the 64 hex digits of the key's SHA-256 (printf %s \"$KEY\" | sha256sum)");
            }
            sha256 = sha256.toLowerCase(Locale.ROOT);
            if (sha256.equals(EMPTY_KEY)) {
                throw new IllegalArgumentException("http.auth.keys: key '" + name + "' has the SHA-256 of an empty key (was"
                        + " $KEY set when it was hashed?): make a random key (head -c 32 /dev/urandom | base64) and hash that");
            }
            endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
            for (String group : endpoints) {
                if (!ENDPOINT_GROUPS.contains(group) && !group.equals(OPERATOR_GROUP)) {
                    java.util.TreeSet<String> known = new java.util.TreeSet<>(ENDPOINT_GROUPS);
                    known.add(OPERATOR_GROUP);
                    throw new IllegalArgumentException("http.auth.keys: key '" + name + "' names unknown endpoint group '"
                            + group + "'; known: " + String.join(", ", known));
                }
            }
            if (rateLimitPerMinute != null && rateLimitPerMinute < 1) {
                throw new IllegalArgumentException("http.auth.keys: key '" + name + "' rateLimitPerMinute must be at least 1");
            }
            if (callbackSecret != null && callbackSecret.length() < 16) {
                throw new IllegalArgumentException("http.auth.keys: key '" + name + "' callbackSecret must be at least 16"
                        + " characters (head -c 32 /dev/urandom | base64)");
            }
        }

        /** Reads {@code name:sha256} or {@code name:sha256:group+group}. */
        @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
        public static ApiKey parse(String text) {
            String[] parts = text.trim().split(":", -1);
            if (parts.length < 2 || parts.length > 3) {
                throw new IllegalArgumentException("http.auth.keys: '" + text + "' is not name:sha256 or name:sha256:group+group");
            }
            List<String> groups = parts.length == 3 && !parts[2].isBlank()
                    ? new ArrayList<>(Arrays.asList(parts[2].split("\\+"))) : List.of();
            return new ApiKey(parts[0], parts[1], groups, null);
        }

        /** Whether this key may use the endpoint group. */
        public boolean allows(String group) {
            List<String> groups = groups();
            return groups.isEmpty() || groups.contains(group);
        }

        /** The endpoint groups named, {@link #OPERATOR_GROUP} left out (empty: all). */
        public List<String> groups() {
            return endpoints.stream().filter(g -> !g.equals(OPERATOR_GROUP)).toList();
        }

        /** Whether this key sees and cancels every run, not only its own: it names {@link #OPERATOR_GROUP}. */
        public boolean operator() {
            return endpoints.contains(OPERATOR_GROUP);
        }

        @Override
        public String toString() {
            return "ApiKey[name=" + name + ", endpoints=" + endpoints + "]";
        }
    }

    /** The {@code http} section of a config (its defaults when it sets none). */
    public static HttpConfig from(CodeAgentConfig config) {
        return config.section(SECTION);
    }

    public static HttpConfig defaults() {
        return new HttpConfig("127.0.0.1", 8080, new Auth(true, List.of()), 120, ByteSize.ofMiB(2), new ByteSize(8 * 1024),
                Duration.ofSeconds(30), Duration.ofSeconds(10), 0, 64, Duration.ofSeconds(60), 4, 64, Duration.ofSeconds(60),
                ByteSize.ofMiB(1024), 4, 1, ByteSize.ofMiB(8), 0, 0, Duration.ofHours(24), 200, 1000, Duration.ofHours(24),
                List.of());
    }

    /** Sessions one key may hold at once: {@code maxSessionsPerKey}, or its default share of {@code maxSessions}. */
    public int sessionsPerKey() {
        return perKey(maxSessionsPerKey, maxSessions);
    }

    /** Runs one key may have going at once: {@code maxConcurrentRunsPerKey}, or its default share of the places. */
    public int runsPerKey() {
        return perKey(maxConcurrentRunsPerKey, maxConcurrentRuns);
    }

    private int perKey(int configured, int places) {
        if (configured > 0) {
            return Math.min(configured, places);
        }
        // with one key (or none, auth off) there is no one else to keep a place for; with more, one key gets half
        // the places, so that it cannot hold them all while another key waits
        long names = auth.enabled() ? auth.keys().stream().map(ApiKey::name).distinct().count() : 1;
        return names < 2 ? places : Math.max(1, places / 2);
    }

    private static void positive(String key, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + " must be at least 1, was " + value);
        }
    }

    private static void positive(String key, Duration value) {
        Objects.requireNonNull(value, key);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(key + " must be positive, was " + Units.formatDuration(value));
        }
    }
}
