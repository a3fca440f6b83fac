package dev.codeagent.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.codeagent.application.submit.StoredExecution;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A submission's {@code callbackUrl}: POSTed the submission (the JSON {@code GET /v1/executions/{id}} answers) once it is
 * done, signed with the submitting key's {@code callbackSecret} ({@code X-Codeagent-Signature: sha256=<hex HMAC-SHA256
 * of the body>}, as GitHub signs its webhooks), tried again with a doubling pause until a 2xx or {@link #ATTEMPTS}
 * tries. Only the hosts of {@code http.callbackHosts} may be named (none by default), redirects are not followed, so
 * a callback cannot be aimed at a service inside the network unless an operator allowed its host.
 */
final class Callbacks implements AutoCloseable {

    static final String SIGNATURE = "X-Codeagent-Signature";
    static final int ATTEMPTS = 5;
    private static final Logger log = LoggerFactory.getLogger(Callbacks.class);

    private final List<String> allowedHosts;
    private final List<HttpConfig.ApiKey> keys;
    private final Duration firstPause;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER).build();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "callbacks");
        t.setDaemon(true);
        return t;
    });

    /** @param firstPause the pause before the second try; each later pause is twice the one before */
    Callbacks(HttpConfig http, Duration firstPause) {
        this.allowedHosts = http.callbackHosts();
        this.keys = http.auth().keys();
        this.firstPause = firstPause;
    }

    /** A callback's target and the secret it is signed with. */
    record Target(URI uri, byte[] secret) {
    }

    /**
     * Checks a {@code callbackUrl} of the key named {@code keyName} (null: auth off).
     *
     * @throws ProblemException 400 naming {@code field} when the URL is not http(s), its host is not allowed, or the key has
     *     no secret to sign with
     */
    Target target(String url, String keyName, String field) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw ProblemException.invalid(field, "not a URL: " + JsonBodies.abbreviate(url, 80));
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null || uri.getUserInfo() != null) {
            throw ProblemException.invalid(field, "must be an http or https URL with a host and no user name, was "
                    + JsonBodies.abbreviate(url, 80));
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        String hostPort = uri.getPort() < 0 ? host : host + ":" + uri.getPort();
        if (!allowedHosts.contains(host) && !allowedHosts.contains(hostPort)) {
            throw ProblemException.invalid(field, "the host " + JsonBodies.abbreviate(hostPort, 80) + " is not one callbacks may"
                    + " go to (http.callbackHosts" + (allowedHosts.isEmpty() ? ", which allows none by default)" : ": "
                    + String.join(", ", allowedHosts) + ")"));
        }
        Optional<String> secret = keys.stream().filter(k -> k.name().equals(keyName) && k.callbackSecret() != null)
                .map(HttpConfig.ApiKey::callbackSecret).findFirst();
        if (secret.isEmpty()) {
            throw ProblemException.invalid(field, keyName == null ? "callbacks need an API key with a callbackSecret (auth is off)"
                    : "the key '" + keyName + "' has no callbackSecret to sign callbacks with (http.auth.keys)");
        }
        return new Target(uri, secret.get().getBytes(StandardCharsets.UTF_8));
    }

    /** POSTs the done submission to its target, trying again with backoff; never throws. */
    void deliver(Target target, StoredExecution done) {
        String body;
        try {
            body = Views.MAPPER.writeValueAsString(done.isJudgement() ? Views.judgementSubmission(done) : Views.submission(done));
        } catch (JsonProcessingException e) {
            log.warn("callback of {} could not be written: {}", done.id(), e.getMessage());
            return;
        }
        HttpRequest request = HttpRequest.newBuilder(target.uri()).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header(SIGNATURE, "sha256=" + sign(target.secret(), body))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        attempt(request, done.id(), 1, firstPause);
    }

    private void attempt(HttpRequest request, String id, int n, Duration pause) {
        client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
            if (e == null && r.statusCode() / 100 == 2) {
                return;
            }
            String why = e != null ? e.toString() : "status " + r.statusCode();
            if (n >= ATTEMPTS) {
                log.warn("callback of {} to {} failed {} times, the last: {}; giving up", id, request.uri().getHost(), n, why);
                return;
            }
            log.info("callback of {} to {} failed ({}); trying again in {} ms", id, request.uri().getHost(), why, pause.toMillis());
            try {
                timer.schedule(() -> attempt(request, id, n + 1, pause.multipliedBy(2)), pause.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException stopped) {
                log.debug("callback of {} dropped: the server stopped", id);
            }
        });
    }

    /** The hex HMAC-SHA256 of {@code body} with {@code secret}. */
    static String sign(byte[] secret, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Objects.requireNonNull(secret), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
