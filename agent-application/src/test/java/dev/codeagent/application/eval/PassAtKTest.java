package dev.codeagent.application.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.List;
import org.junit.jupiter.api.Test;

class PassAtKTest {

    @Test
    void passAtOneIsTheShareOfPassingSamples() {
        assertThat(PassAtK.estimate(1, 1, 1)).isEqualTo(1.0);
        assertThat(PassAtK.estimate(1, 0, 1)).isEqualTo(0.0);
        assertThat(PassAtK.estimate(2, 1, 1)).isCloseTo(0.5, within(1e-12));
        assertThat(PassAtK.estimate(10, 3, 1)).isCloseTo(0.3, within(1e-12));
    }

    @Test
    void matchesTheBinomialFormulaOnHandComputedCases() {
        // n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252
        assertThat(PassAtK.estimate(10, 3, 5)).isCloseTo(1 - 21.0 / 252, within(1e-12));
        // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10
        assertThat(PassAtK.estimate(5, 2, 2)).isCloseTo(0.7, within(1e-12));
        // n=4, c=1, k=3: 1 - C(3,3)/C(4,3) = 1 - 1/4
        assertThat(PassAtK.estimate(4, 1, 3)).isCloseTo(0.75, within(1e-12));
    }

    @Test
    void isCertainWhenFewerFailuresThanDrawsRemain() {
        // n - c < k: every draw of k contains a pass
        assertThat(PassAtK.estimate(5, 4, 2)).isEqualTo(1.0);
        assertThat(PassAtK.estimate(10, 10, 10)).isEqualTo(1.0);
    }

    @Test
    void staysAccurateWhereTheBinomialsOverflowADouble() {
        // C(200, 100) is about 9e58 and C(1000, 500) overflows a double; the product form does not care
        for (int[] nck : new int[][] {{200, 37, 100}, {200, 1, 10}, {1000, 3, 500}}) {
            int n = nck[0];
            int c = nck[1];
            int k = nck[2];
            BigDecimal ratio = new BigDecimal(binomial(n - c, k)).divide(new BigDecimal(binomial(n, k)), MathContext.DECIMAL128);
            double exact = BigDecimal.ONE.subtract(ratio).doubleValue();
            assertThat(PassAtK.estimate(n, c, k)).as("n=%d c=%d k=%d", n, c, k).isCloseTo(exact, within(1e-12));
        }
    }

    @Test
    void reportsOnlyTheKEveryProblemHasSamplesFor() {
        var tenEach = List.of(new PassAtK.Counts(10, 3), new PassAtK.Counts(10, 0));
        var result = PassAtK.standard(tenEach);
        assertThat(result).containsOnlyKeys(1, 10);
        assertThat(result.get(1)).isCloseTo((0.3 + 0.0) / 2, within(1e-12));
        assertThat(result.get(10)).isCloseTo((1.0 + 0.0) / 2, within(1e-12));

        var uneven = List.of(new PassAtK.Counts(100, 1), new PassAtK.Counts(9, 9));
        assertThat(PassAtK.standard(uneven)).containsOnlyKeys(1);
        assertThat(PassAtK.standard(List.of())).isEmpty();
        assertThat(PassAtK.standard(List.of(new PassAtK.Counts(100, 50)))).containsOnlyKeys(1, 10, 100);
    }

    @Test
    void refusesImpossibleCounts() {
        assertThatThrownBy(() -> PassAtK.estimate(3, 4, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PassAtK.estimate(3, 1, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PassAtK.estimate(3, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static BigInteger binomial(int n, int k) {
        BigInteger r = BigInteger.ONE;
        for (int i = 0; i < k; i++) {
            r = r.multiply(BigInteger.valueOf(n - i)).divide(BigInteger.valueOf(i + 1));
        }
        return r;
    }
}
