package dev.codeagent.application.eval;

import java.time.Duration;
import java.util.Optional;

/**
 * How far an evaluation has got.
 *
 * @param done samples finished
 * @param total samples in all
 * @param passed samples accepted so far
 * @param elapsed time since the evaluation began
 */
public record EvaluationProgress(int done, int total, int passed, Duration elapsed) {

    /** Share of finished samples that passed, 0 when none has finished. */
    public double passRate() {
        return done == 0 ? 0 : (double) passed / done;
    }

    /** Samples finished per second so far. */
    public double ratePerSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds <= 0 ? 0 : done / seconds;
    }

    /** The time still needed at the rate so far, or empty before the first sample has finished. */
    public Optional<Duration> eta() {
        double rate = ratePerSecond();
        if (done == 0 || rate <= 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofMillis(Math.round((total - done) / rate * 1000)));
    }
}
