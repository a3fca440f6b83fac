package dev.codeagent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Off a terminal (a pipe, a CI log), eval's progress is a plain line every few seconds, not silence and not a bar. */
class EvalProgressTest {

    @Test
    void offATerminalAPlainLineComesEveryIntervalWithDoneTotalRateAndEta() throws InterruptedException {
        StringWriter err = new StringWriter();
        EvalProgress.ProgressBar bar = new EvalProgress.ProgressBar(new PrintWriter(err), false, "evaluating", Duration.ofMillis(50));
        bar.show(1, 10, 1.0, Duration.ZERO);
        assertThat(err.toString()).as("nothing before the first interval").isEmpty();
        Thread.sleep(80);
        bar.show(4, 10, 0.75, Duration.ZERO);
        bar.show(5, 10, 0.8, Duration.ZERO);
        assertThat(err.toString().lines()).singleElement().satisfies(line -> assertThat(line)
                .matches("codeagent: evaluating 4/10, pass 75\\.0%, [0-9.]+/s, ETA [0-9hms]+")
                .doesNotContain("\r", "\033"));
        Thread.sleep(80);
        bar.show(10, 10, 0.8, Duration.ZERO);
        assertThat(err.toString().lines()).as("the summary follows the last sample, not a progress line").hasSize(1);
    }

    @Test
    void theIntervalComesFromTheEnvironmentAndOffTurnsItOff() {
        assertThat(EvalProgress.progressInterval(Map.of())).isEqualTo(Duration.ofSeconds(5));
        assertThat(EvalProgress.progressInterval(Map.of("CODEAGENT_PROGRESS_INTERVAL", "2s"))).isEqualTo(Duration.ofSeconds(2));
        assertThat(EvalProgress.progressInterval(Map.of("CODEAGENT_PROGRESS_INTERVAL", "off"))).isZero();
        assertThatThrownBy(() -> EvalProgress.progressInterval(Map.of("CODEAGENT_PROGRESS_INTERVAL", "soon")))
                .hasMessageContaining("CODEAGENT_PROGRESS_INTERVAL=soon");
        StringWriter err = new StringWriter();
        new EvalProgress.ProgressBar(new PrintWriter(err), false, "evaluating", Duration.ZERO).show(1, 10, 1.0, Duration.ZERO);
        assertThat(err.toString()).isEmpty();
    }
}
