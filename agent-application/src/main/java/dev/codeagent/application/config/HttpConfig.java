package dev.codeagent.application.config;

import java.time.Duration;
import java.util.List;

/**
 * The HTTP API server.
 *
 * @param host the address to bind; loopback unless set otherwise
 * @param port the port; 0 picks a free one
 * @param auth API keys; auth is on unless turned off explicitly
 * @param rateLimitPerMinute requests one key may make per minute
 * @param maxBodyBytes the largest request body accepted
 * @param requestTimeout how long a slow client may take to send a request
 * @param shutdownGrace how long in-flight work may go on after a shutdown starts
 */
public record HttpConfig(
        String host,
        int port,
        Auth auth,
        int rateLimitPerMinute,
        ByteSize maxBodyBytes,
        Duration requestTimeout,
        Duration shutdownGrace) {

    /**
     * @param enabled false only for local use; then every request is allowed
     * @param keys the accepted keys
     */
    public record Auth(boolean enabled, List<ApiKey> keys) {
        public Auth {
            keys = keys == null ? List.of() : List.copyOf(keys);
        }
    }

    /**
     * @param name who holds the key, for logs and metrics
     * @param sha256 the hex SHA-256 of the key (the key itself is never stored)
     * @param endpoints the endpoint groups the key may use ({@code executions}, {@code runs}, {@code piston}); empty: all
     */
    public record ApiKey(String name, String sha256, List<String> endpoints) {
        public ApiKey {
            endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        }
    }

    public static HttpConfig defaults() {
        return new HttpConfig("127.0.0.1", 8080, new Auth(true, List.of()), 120, ByteSize.ofMiB(2),
                Duration.ofSeconds(30), Duration.ofSeconds(10));
    }
}
