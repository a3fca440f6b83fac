package dev.codeagent.http;

import dev.codeagent.application.config.ConfigException;
import dev.codeagent.application.run.Caller;
import dev.codeagent.http.ProblemException.Type;
import io.javalin.http.Context;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every request passes before its handler and after it: a request id and safe headers, the refusal of what a
 * web page of another origin sends ({@link CrossSite}); for the endpoint groups, a refusal while the server stops,
 * the API key (SHA-256 in config, constant-time comparison) and its groups, a rate limit per key (per address when
 * auth is off) and a limit on failed authentication per address; afterwards, the request metrics.
 */
final class RequestGuard {

    static final String REQUEST_ID = "codeagent.requestId";
    /** The name of the API key a request was authorized with; absent when auth is off. */
    static final String KEY_NAME = "codeagent.keyName";
    /** Who a request's caller is to the application (a {@link Caller}): its key, or, with auth off, an operator. */
    static final String CALLER = "codeagent.caller";
    /** With auth off every caller is the same one, on a trusted machine: it sees every run, and its runs are no one's. */
    private static final Caller ANYONE = new Caller(null, true);
    private static final String STARTED = "codeagent.started";
    private static final Logger log = LoggerFactory.getLogger(RequestGuard.class);
    private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS");
    private static final int AUTH_FAILURES_PER_MINUTE = 30;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final HttpConfig http;
    private final CrossSite crossSite;
    private final ApiKeys keys;
    private final RateLimits rateLimits = new RateLimits();
    private final ApiMetrics metrics;
    private final BooleanSupplier stopping;

    /** @throws ConfigException when auth is on without any key */
    RequestGuard(HttpConfig http, ApiMetrics metrics, BooleanSupplier stopping) {
        if (http.auth().enabled() && http.auth().keys().isEmpty()) {
            throw new ConfigException("http.auth.enabled is true but http.auth.keys is empty: add a key (name and the SHA-256"
                    + " of the key: printf %s \"$KEY\" | sha256sum) or, for local use only, set http.auth.enabled=false");
        }
        if (!http.auth().enabled()) {
            log.warn("http.auth.enabled=false: every request is allowed without an API key{}",
                    isLoopback(http.host()) ? "; use this only on a trusted machine"
                            : " and the server listens on " + http.host() + ", beyond this machine");
        }
        this.http = http;
        // with a key required, a rebinding page (which has none) gets nothing: the Host is checked only with auth off, so
        // that a server behind a proxy or reached by a DNS name needs no list of its names
        this.crossSite = new CrossSite(!http.auth().enabled(), http.host());
        this.keys = new ApiKeys(http.auth().keys());
        this.metrics = metrics;
        this.stopping = stopping;
    }

    /**
     * The endpoint group a path belongs to, or null for the open ones ({@code /health}, {@code /openapi.json}, paths
     * outside the API). Closed by default under {@code /v1/} and {@code /api/}: a path there that no group names
     * still needs a key (and no key limited to groups allows it), so a route added without a group here is never
     * open by mistake.
     */
    static String group(String path) {
        // judging given code runs it as an execution does: a key allowed executions may judge, and no other
        if (path.startsWith("/v1/executions") || path.startsWith("/v1/languages") || path.startsWith("/v1/judgements")) {
            return "executions";
        }
        if (path.startsWith("/v1/runs")) {
            return "runs";
        }
        if (path.startsWith("/v1/evaluations")) {
            return "evaluations";
        }
        if (path.startsWith("/v1/sessions")) {
            return "sessions";
        }
        if (path.startsWith("/api/v2")) {
            return "piston";
        }
        if (path.startsWith("/metrics")) {
            return "metrics";
        }
        // the API's own namespaces are closed by default; anything else is not a route (404 for anyone)
        return path.startsWith("/v1/") || path.startsWith("/api/") ? UNGROUPED : null;
    }

    /** The group of API paths no group names: any unrestricted key may reach them (to get their 404). */
    static final String UNGROUPED = "ungrouped";

    /**
     * Whether the request comes from an operator (a key naming admin), or needs no key (auth off): who may see the
     * health details — why a check failed, and the counts of work in progress, which are every key's together.
     */
    boolean operator(Context ctx) {
        return !http.auth().enabled() || ApiKeys.presented(ctx.header("Authorization")).flatMap(keys::find)
                .filter(HttpConfig.ApiKey::operator).isPresent();
    }

    void before(Context ctx) {
        ctx.attribute(STARTED, System.nanoTime());
        String requestId = newRequestId();
        ctx.attribute(REQUEST_ID, requestId);
        ctx.header("X-Request-Id", requestId);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Cache-Control", "no-store");
        // every path, the open ones too: with auth off a rebinding page must not read even /health's details
        CrossSite.Seen seen = new CrossSite.Seen(ctx.method().name(), ctx.header("Host"), ctx.header("Origin"),
                ctx.header("Sec-Fetch-Site"), upgrade(ctx.header("Upgrade")), false);
        crossSite(seen);
        String group = group(ctx.path());
        if (group == null) {
            return;
        }
        if (stopping.getAsBoolean()) {
            throw ProblemException.retryLater(Type.SHUTTING_DOWN, "the server is shutting down", Duration.ofSeconds(5));
        }
        authorize(ctx, group, CrossSite.fromAnotherPage(seen));
    }

    private void authorize(Context ctx, String group, boolean fromAnotherPage) {
        Optional<HttpConfig.ApiKey> key = authorize(ctx.header("Authorization"), ctx.req().getRemoteAddr(), group,
                fromAnotherPage);
        key.ifPresent(k -> ctx.attribute(KEY_NAME, k.name()));
        ctx.attribute(CALLER, caller(key));
    }

    /**
     * Refuses what a web page of another origin sends, or, with auth off, a request by a name that is not this
     * server's ({@link CrossSite}), for the API's routes and for what other doors serve beside them alike.
     *
     * @throws ProblemException 403 {@code cross-site} or 421 {@code unknown-host}
     */
    void crossSite(CrossSite.Seen request) {
        Optional<ProblemException> refusal = crossSite.refusal(request);
        if (refusal.isPresent()) {
            metrics.rejected(refusal.get().type() == Type.UNKNOWN_HOST ? "unknown_host" : "cross_site");
            throw refusal.get();
        }
    }

    /** Whether an {@code Upgrade} header asks for a WebSocket: a browser opens one from any page, CORS never applies. */
    static boolean upgrade(String header) {
        return header != null && header.toLowerCase(Locale.ROOT).contains("websocket");
    }

    /** Who a request authorized as {@code key} is to the application; with auth off (no key), anyone. */
    static Caller caller(Optional<HttpConfig.ApiKey> key) {
        return key.map(k -> Caller.apiKey(k.name(), k.operator())).orElse(ANYONE);
    }

    /**
     * The key check for a request to {@code group} from {@code address} with its {@code Authorization} header, for the
     * API's routes and for what other doors serve beside them ({@link HostedEndpoints}) alike.
     *
     * @return the key, or empty when auth is off
     * @throws ProblemException 401, 403 or 429
     */
    Optional<HttpConfig.ApiKey> authorize(String authorization, String address, String group) {
        return authorize(authorization, address, group, false);
    }

    /**
     * @param fromAnotherPage whether a page of another origin sent it ({@link CrossSite#fromAnotherPage}); with auth
     *     off such requests have a limit of their own, or a page's {@code <img>}s would spend the limit of every
     *     program of the address (curl, the SDKs, the console on this machine) and have them refused
     */
    private Optional<HttpConfig.ApiKey> authorize(String authorization, String address, String group, boolean fromAnotherPage) {
        if (!http.auth().enabled()) {
            limit("address:" + address + (fromAnotherPage ? " pages" : ""), http.rateLimitPerMinute());
            return Optional.empty();
        }
        // the key is checked before the address's failures: a valid key is never refused for what others sent from its
        // address (behind a proxy or a NAT, a caller without a key would otherwise lock out every key holder there).
        // The failure limit slows guessing and quiets the logs; what keeps a key from being guessed is its randomness
        // (docs/http-api.md: a random key of 32 bytes)
        Optional<String> presented = ApiKeys.presented(authorization);
        Optional<HttpConfig.ApiKey> key = presented.flatMap(keys::find);
        if (key.isEmpty()) {
            Optional<Duration> blocked = rateLimits.exhausted("auth-failures:" + address, AUTH_FAILURES_PER_MINUTE);
            if (blocked.isPresent()) {
                metrics.rejected("rate_limited");
                throw ProblemException.retryLater(Type.RATE_LIMITED, "too many failed authentication attempts from this"
                        + " address", blocked.get());
            }
            authFailed(address);
            throw new ProblemException(Type.UNAUTHORIZED, presented.isEmpty()
                    ? "send an API key as 'Authorization: Bearer <key>'" : "the API key is not valid");
        }
        if (group.equals("metrics") && !key.get().operator() && !key.get().groups().contains("metrics")) {
            // the counters are every key's together (runs started, sessions live): a tenant reading them would learn
            // when and how much the other tenants work. An operator reads them, or a scraper's key naming metrics
            metrics.rejected("forbidden");
            throw new ProblemException(Type.FORBIDDEN, "the key '" + key.get().name() + "' may not read /metrics: it is for"
                    + " operators (a key naming admin) and for a key naming the metrics group, as a Prometheus scraper's");
        }
        if (!key.get().allows(group)) {
            metrics.rejected("forbidden");
            throw new ProblemException(Type.FORBIDDEN, "the key '" + key.get().name() + "' may not use the " + group
                    + " endpoints; it may use: " + String.join(", ", key.get().groups()));
        }
        int perMinute = key.get().rateLimitPerMinute() != null ? key.get().rateLimitPerMinute() : http.rateLimitPerMinute();
        limit("key:" + key.get().name(), perMinute);
        return key;
    }

    /**
     * The caller of a request that passed {@link #before}; a request that reached a handler without one is a bug
     * (a route outside every group), and is refused rather than treated as anyone.
     */
    static Caller caller(Context ctx) {
        Caller c = ctx.attribute(CALLER);
        if (c == null) {
            throw new IllegalStateException("no caller for " + ctx.path() + ": the route is outside every endpoint group");
        }
        return c;
    }

    private void authFailed(String address) {
        metrics.rejected("unauthorized");
        rateLimits.acquire("auth-failures:" + address, AUTH_FAILURES_PER_MINUTE);
    }

    private void limit(String caller, int perMinute) {
        Optional<Duration> wait = rateLimits.acquire(caller, perMinute);
        if (wait.isPresent()) {
            metrics.rejected("rate_limited");
            throw ProblemException.retryLater(Type.RATE_LIMITED, "the rate limit of " + perMinute + " requests per minute is used up",
                    wait.get());
        }
    }

    /** Whether the server is stopping: new requests to the endpoint groups are refused. */
    boolean stopping() {
        return stopping.getAsBoolean();
    }

    /** A new request id, for the X-Request-Id header and the logs. */
    static String newRequestId() {
        byte[] id = new byte[6];
        RANDOM.nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    void after(Context ctx) {
        Long started = ctx.attribute(STARTED);
        String route = ctx.attribute(Router.ROUTE);
        String method = ctx.method().name();
        metrics.request(METHODS.contains(method) ? method : "OTHER", route == null ? "unmatched" : route, ctx.statusCode(),
                started == null ? 0 : System.nanoTime() - started);
        if (log.isDebugEnabled()) {
            log.debug("{} {} {} {}ms", method, ctx.path(), ctx.statusCode(),
                    started == null ? 0 : (System.nanoTime() - started) / 1_000_000);
        }
    }

    private static boolean isLoopback(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]");
    }
}
