package dev.codeagent.generator;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads how long a server asked us to wait: {@code Retry-After} as delay-seconds or an HTTP-date
 * (RFC 9110 §10.2.3), or OpenAI's {@code retry-after-ms}.
 */
final class RetryAfter {

    private RetryAfter() {
    }

    /**
     * @param retryAfterMs the {@code retry-after-ms} header, preferred when valid because it is finer
     * @param retryAfter the {@code Retry-After} header
     * @return the wait, never negative; empty when neither header is present or readable
     */
    static Optional<Duration> parse(Optional<String> retryAfterMs, Optional<String> retryAfter, Clock clock) {
        Optional<Duration> ms = retryAfterMs.flatMap(v -> decimal(v).map(d -> millis(d)));
        if (ms.isPresent()) {
            return ms;
        }
        return retryAfter.flatMap(v -> {
            Optional<BigDecimal> seconds = decimal(v);
            if (seconds.isPresent()) {
                return Optional.of(millis(seconds.get().movePointRight(3)));
            }
            try {
                ZonedDateTime at = ZonedDateTime.parse(v.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
                Duration wait = Duration.between(clock.instant(), at.toInstant());
                return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
            } catch (DateTimeParseException e) {
                return Optional.empty();
            }
        });
    }

    private static Optional<BigDecimal> decimal(String value) {
        String v = value.trim();
        if (!v.matches("\\d{1,12}(\\.\\d{1,9})?")) {
            return Optional.empty();
        }
        return Optional.of(new BigDecimal(v));
    }

    private static Duration millis(BigDecimal millis) {
        return Duration.ofMillis(millis.setScale(0, java.math.RoundingMode.CEILING).longValueExact());
    }
}
