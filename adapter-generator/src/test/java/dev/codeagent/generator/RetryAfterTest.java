package dev.codeagent.generator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

    private static final Clock NOW = Clock.fixed(Instant.parse("2015-10-21T07:28:00Z"), ZoneOffset.UTC);

    private static Optional<Duration> parse(String ms, String header) {
        return RetryAfter.parse(Optional.ofNullable(ms), Optional.ofNullable(header), NOW);
    }

    @Test
    void readsDelaySecondsAndHttpDates() {
        assertThat(parse(null, "120")).contains(Duration.ofSeconds(120));
        assertThat(parse(null, " 1.5 ")).contains(Duration.ofMillis(1500));
        assertThat(parse(null, "Wed, 21 Oct 2015 07:29:00 GMT")).contains(Duration.ofMinutes(1));
    }

    @Test
    void aDateInThePastMeansNoWait() {
        assertThat(parse(null, "Wed, 21 Oct 2015 07:00:00 GMT")).contains(Duration.ZERO);
    }

    @Test
    void prefersOpenAisMillisecondHeader() {
        assertThat(parse("250", "1")).contains(Duration.ofMillis(250));
        assertThat(parse("soon", "1")).contains(Duration.ofSeconds(1));
    }

    @Test
    void ignoresWhatItCannotRead() {
        assertThat(parse(null, null)).isEmpty();
        assertThat(parse(null, "-3")).isEmpty();
        assertThat(parse(null, "tomorrow")).isEmpty();
    }
}
