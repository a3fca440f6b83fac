package dev.codeagent.application.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class UnitsTest {

    @Test
    void parsesDurations() {
        assertThat(Units.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Units.parseDuration("5s")).isEqualTo(Duration.ofSeconds(5));
        assertThat(Units.parseDuration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Units.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Units.parseDuration(" 1H ")).isEqualTo(Duration.ofHours(1));
        assertThat(Units.parseDuration("250")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void rejectsBadDurationsNamingTheText() {
        for (String bad : new String[] {"5x", "", "-1s", "s", "1e9h", "five"}) {
            assertThatThrownBy(() -> Units.parseDuration(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + bad + "'");
        }
    }

    @Test
    void parsesSizes() {
        assertThat(Units.parseBytes("256m")).isEqualTo(256L << 20);
        assertThat(Units.parseBytes("64k")).isEqualTo(64L << 10);
        assertThat(Units.parseBytes("1g")).isEqualTo(1L << 30);
        assertThat(Units.parseBytes("512MiB")).isEqualTo(512L << 20);
        assertThat(Units.parseBytes("1000")).isEqualTo(1000);
        assertThatThrownBy(() -> Units.parseBytes("12q")).hasMessageContaining("'12q' is not a size");
    }

    @Test
    void formatsRoundTrip() {
        for (String s : new String[] {"500ms", "5s", "2m", "1h", "1500ms"}) {
            assertThat(Units.formatDuration(Units.parseDuration(s))).isEqualTo(s);
        }
        for (String s : new String[] {"256m", "64k", "1g", "1000"}) {
            assertThat(Units.formatBytes(Units.parseBytes(s))).isEqualTo(s);
        }
    }
}
