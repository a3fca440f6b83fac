package dev.codeagent.http;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Per-caller request budgets (Resilience4j rate limiters, one per key or client address): a caller
 * over budget is told how long to wait instead of being queued. The number of limiters kept is
 * bounded, so a flood of distinct addresses cannot grow memory without end.
 */
final class RateLimits {

    private static final int MAX_LIMITERS = 10_000;
    private static final Duration PERIOD = Duration.ofMinutes(1);

    private final Map<String, RateLimiter> limiters = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, RateLimiter> eldest) {
            return size() > MAX_LIMITERS;
        }
    };

    private RateLimiter limiter(String caller, int perMinute) {
        synchronized (limiters) {
            return limiters.computeIfAbsent(caller + "/" + perMinute, k -> RateLimiter.of(k, RateLimiterConfig.custom()
                    .limitForPeriod(perMinute)
                    .limitRefreshPeriod(PERIOD)
                    .timeoutDuration(Duration.ZERO)
                    .build()));
        }
    }

    /** Takes one request from the caller's budget; empty when allowed, else how long to wait. */
    Optional<Duration> acquire(String caller, int perMinute) {
        RateLimiter l = limiter(caller, perMinute);
        if (l.acquirePermission()) {
            return Optional.empty();
        }
        return Optional.of(waitTime(l));
    }

    /** Whether the caller has no budget left, without taking any; empty when it has. */
    Optional<Duration> exhausted(String caller, int perMinute) {
        RateLimiter l = limiter(caller, perMinute);
        return l.getMetrics().getAvailablePermissions() > 0 ? Optional.empty() : Optional.of(waitTime(l));
    }

    private static Duration waitTime(RateLimiter l) {
        long nanos = l instanceof AtomicRateLimiter ? ((AtomicRateLimiter) l).getDetailedMetrics().getNanosToWait() : PERIOD.toNanos();
        return Duration.ofNanos(Math.max(nanos, 1_000_000_000L));
    }
}
