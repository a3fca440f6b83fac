package dev.codeagent.application.config;

import java.time.Duration;

/**
 * How the agent loop behaves.
 *
 * @param maxAttempts the attempt budget of a task that does not set one
 * @param runTimeout the most a whole run may take, generation and execution together
 * @param generatorRetries tries of one generation on transient failures, the first included
 * @param retryBackoff the first wait between tries; it doubles each time
 */
public record SolveConfig(int maxAttempts, Duration runTimeout, int generatorRetries, Duration retryBackoff) {

    public SolveConfig {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("solve.maxAttempts must be at least 1, was " + maxAttempts);
        }
        if (generatorRetries < 1) {
            throw new IllegalArgumentException("solve.generatorRetries must be at least 1, was " + generatorRetries);
        }
    }

    public static SolveConfig defaults() {
        return new SolveConfig(3, Duration.ofMinutes(10), 4, Duration.ofMillis(500));
    }
}
