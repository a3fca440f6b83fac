package dev.codeagent.application.eval;

import java.util.Collection;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The unbiased pass@k estimator of the Codex paper (Chen et al. 2021): for a problem with {@code n}
 * samples of which {@code c} passed, {@code 1 - C(n-c, k) / C(n, k)}, the chance that at least one of
 * {@code k} samples drawn without replacement passes; averaged over problems.
 */
public final class PassAtK {

    /** The k reported when every problem has at least that many samples. */
    public static final int[] STANDARD_K = {1, 10, 100};

    /** Samples and passes of one problem. */
    public record Counts(int n, int c) {
        public Counts {
            if (n < 0 || c < 0 || c > n) {
                throw new IllegalArgumentException("need 0 <= c <= n, was n=" + n + " c=" + c);
            }
        }
    }

    private PassAtK() {
    }

    /**
     * pass@k of one problem. The binomials are never formed: the ratio is the product
     * {@code prod_{i=n-c+1..n} (1 - k/i)}, which stays accurate for n in the hundreds where
     * the binomials themselves overflow a double.
     *
     * @throws IllegalArgumentException unless {@code 0 <= c <= n} and {@code 1 <= k <= n}
     */
    public static double estimate(int n, int c, int k) {
        if (c < 0 || c > n) {
            throw new IllegalArgumentException("passed samples must be between 0 and " + n + ", was " + c);
        }
        if (k < 1 || k > n) {
            throw new IllegalArgumentException("k must be between 1 and the sample count " + n + ", was " + k);
        }
        if (n - c < k) {
            return 1.0;
        }
        double allFail = 1.0;
        for (int i = n - c + 1; i <= n; i++) {
            allFail *= 1.0 - (double) k / i;
        }
        return 1.0 - allFail;
    }

    /** The mean pass@k over problems; problems without samples are left out. NaN when none has any. */
    public static double mean(Collection<Counts> problems, int k) {
        double sum = 0;
        int counted = 0;
        for (Counts p : problems) {
            if (p.n() > 0) {
                sum += estimate(p.n(), p.c(), k);
                counted++;
            }
        }
        return counted == 0 ? Double.NaN : sum / counted;
    }

    /**
     * pass@k for each standard k that every problem with samples has enough samples for (as
     * human-eval reports them): pass@1 always when any problem has samples, pass@10 from ten
     * samples per problem, pass@100 from a hundred.
     */
    public static SortedMap<Integer, Double> standard(Collection<Counts> problems) {
        int fewest = Integer.MAX_VALUE;
        for (Counts p : problems) {
            if (p.n() > 0) {
                fewest = Math.min(fewest, p.n());
            }
        }
        if (fewest == Integer.MAX_VALUE) {
            return Collections.emptySortedMap();
        }
        SortedMap<Integer, Double> result = new TreeMap<>();
        for (int k : STANDARD_K) {
            if (k <= fewest) {
                result.put(k, mean(problems, k));
            }
        }
        return Collections.unmodifiableSortedMap(result);
    }
}
