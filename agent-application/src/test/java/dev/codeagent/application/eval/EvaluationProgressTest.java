package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class EvaluationProgressTest {

    @Test
    void estimatesTheRemainingTimeFromTheRateSoFar() {
        EvaluationProgress p = new EvaluationProgress(40, 160, 30, Duration.ofSeconds(2));
        assertThat(p.passRate()).isCloseTo(0.75, within(1e-12));
        assertThat(p.ratePerSecond()).isCloseTo(20.0, within(1e-12));
        assertThat(p.eta()).contains(Duration.ofSeconds(6));
    }

    @Test
    void hasNoEstimateBeforeTheFirstResult() {
        EvaluationProgress p = new EvaluationProgress(0, 10, 0, Duration.ZERO);
        assertThat(p.passRate()).isZero();
        assertThat(p.ratePerSecond()).isZero();
        assertThat(p.eta()).isEmpty();
    }
}
