package dev.codeagent.application.config;

import dev.codeagent.application.spi.ConfigSection;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;

/**
 * How the agent protects itself from a failing model endpoint and a hiccuping sandbox ({@code resilience.*}); the
 * defaults are the values that were fixed in code before they could be configured.
 *
 * @param llmWindow calls the model endpoint's circuit breaker looks back over
 * @param llmMinimumCalls calls before it may open at all
 * @param llmFailureRate percent of transient failures in the window that opens it
 * @param llmOpenFor how long it stays open before letting a call through again
 * @param sandboxAttempts tries of one execution whose sandbox failed (not the program), the first included
 * @param sandboxRetryWait the wait between those tries
 */
public record ResilienceConfig(int llmWindow, int llmMinimumCalls, int llmFailureRate, Duration llmOpenFor,
                               int sandboxAttempts, Duration sandboxRetryWait) {

    public static final ConfigSection<ResilienceConfig> SECTION = new ConfigSection<>("resilience", ResilienceConfig.class, defaults());

    public ResilienceConfig {
        if (llmWindow < 1) {
            throw new IllegalArgumentException("resilience.llmWindow must be at least 1, was " + llmWindow);
        }
        if (llmMinimumCalls < 1) {
            throw new IllegalArgumentException("resilience.llmMinimumCalls must be at least 1, was " + llmMinimumCalls);
        }
        if (llmFailureRate < 1 || llmFailureRate > 100) {
            throw new IllegalArgumentException("resilience.llmFailureRate is a percentage from 1 to 100, was " + llmFailureRate);
        }
        if (llmOpenFor == null || llmOpenFor.isNegative() || llmOpenFor.isZero()) {
            throw new IllegalArgumentException("resilience.llmOpenFor must be positive, was " + llmOpenFor);
        }
        if (sandboxAttempts < 1) {
            throw new IllegalArgumentException("resilience.sandboxAttempts must be at least 1, was " + sandboxAttempts);
        }
        if (sandboxRetryWait == null || sandboxRetryWait.isNegative()) {
            throw new IllegalArgumentException("resilience.sandboxRetryWait must not be negative, was " + sandboxRetryWait);
        }
    }

    public static ResilienceConfig defaults() {
        return new ResilienceConfig(10, 5, 50, Duration.ofSeconds(30), 3, Duration.ofMillis(200));
    }

    /** The model endpoint's breaker settings as the registry's default; the caller adds what counts as a failure. */
    public CircuitBreakerRegistry circuitBreakers() {
        return CircuitBreakerRegistry.of(CircuitBreakerConfig.custom()
                .slidingWindowSize(llmWindow)
                .minimumNumberOfCalls(llmMinimumCalls)
                .failureRateThreshold(llmFailureRate)
                .waitDurationInOpenState(llmOpenFor)
                .build());
    }

    /** The sandbox's retry settings as the registry's default; the caller adds what is retried. */
    public RetryRegistry retries() {
        return RetryRegistry.of(RetryConfig.custom()
                .maxAttempts(sandboxAttempts)
                .waitDuration(sandboxRetryWait)
                .build());
    }
}
