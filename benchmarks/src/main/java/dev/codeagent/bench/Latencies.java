package dev.codeagent.bench;

import dev.codeagent.domain.execution.Execution;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

/** What the latency benchmarks share: timing one call, percentiles, and the table row they print. */
final class Latencies {

    private Latencies() {
    }

    /** A timed call that may do I/O. */
    interface Body {
        void run() throws IOException, InterruptedException;
    }

    /** Nanoseconds the body took. */
    static long time(Body body) {
        long t0 = System.nanoTime();
        try {
            body.run();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return System.nanoTime() - t0;
    }

    /** The p-th percentile (nearest rank) in milliseconds. */
    static double pct(long[] nanos, int p) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int i = (int) Math.round((sorted.length - 1) * p / 100.0);
        return sorted[i] / 1e6;
    }

    /** One table row: label, p50, p95 and mean in milliseconds. */
    static void row(String label, int labelWidth, long[] nanos) {
        System.out.printf(Locale.ROOT, "%-" + labelWidth + "s %9.2f %9.2f %9.2f%n", label, pct(nanos, 50), pct(nanos, 95),
                Arrays.stream(nanos).average().orElse(0) / 1e6);
    }

    /** Fails the benchmark unless the run printed exactly "1": a failing run must not be timed as a fast one. */
    static void check(Execution e, String what) {
        if (!e.ok() || !e.stdout().text().equals("1\n")) {
            throw new IllegalStateException(what + " run failed: " + e.outcome() + " " + e.detail() + " " + e.stderr().text());
        }
    }
}
