package dev.codeagent.cli;

import dev.codeagent.application.config.Units;
import dev.codeagent.application.eval.EvaluationProgress;
import dev.codeagent.application.eval.RunBenchmark;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code codeagent eval} shows while it works: the progress bars of its two phases (generating, evaluating) on
 * stderr, or a plain line every few seconds where stderr is not a terminal, and the latest progress for the summary of
 * an interrupted evaluation. Split from {@link EvalCommand}, which validates, runs and reports.
 */
final class EvalProgress implements RunBenchmark.Listener {
    final ProgressBar generating;
    final ProgressBar evaluating;
    /** The latest progress, for the summary of an interrupted evaluation. */
    volatile EvaluationProgress last;

    EvalProgress(PrintWriter err, boolean live, Duration interval) {
        generating = new ProgressBar(err, live, "generating", interval);
        evaluating = new ProgressBar(err, live, "evaluating", interval);
    }

    @Override
    public void generating(int done, int total) {
        generating.show(done, total, -1, Duration.ZERO);
    }

    @Override
    public void generated() {
        generating.clear();
    }

    @Override
    public void evaluated(EvaluationProgress progress) {
        last = progress;
        evaluating.show(progress);
    }

    /** How often a progress line is printed when stderr is not a terminal. */
    static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);
    static final String PROGRESS_ENV = "CODEAGENT_PROGRESS_INTERVAL";

    /**
     * {@value #PROGRESS_ENV} ({@code 5s} by default; {@code off} for none): a log or a CI job sees a line every few
     * seconds instead of minutes of silence, without the bar's carriage returns.
     */
    static Duration progressInterval(Map<String, String> env) {
        String v = env.get(PROGRESS_ENV);
        if (v == null || v.isBlank()) {
            return PROGRESS_INTERVAL;
        }
        if (v.strip().equalsIgnoreCase("off") || v.strip().equals("0")) {
            return Duration.ZERO;
        }
        try {
            return Units.parseDuration(v);
        } catch (IllegalArgumentException e) {
            throw new UsageException(PROGRESS_ENV + "=" + v + ": " + e.getMessage() + ", or off");
        }
    }

    /**
     * Whether this process's stderr is a terminal: the progress bar belongs there even when stdout is
     * redirected ({@code --json > results.json}), which {@code System.console()} cannot tell.
     */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /**
     * The bar on stderr: {@code evaluating [#####-----] 82/164 pass 97.6% 41.2/s ETA 2s}, redrawn at most
     * ten times a second; when stderr is not a terminal, a plain line every {@code interval} instead
     * ({@code codeagent: evaluating 82/164, pass 97.6%, 41.2/s, ETA 2s}), none when it is zero.
     */
    static final class ProgressBar {
        private static final String CLEAR_LINE = "\r\033[K";
        private static final int WIDTH = 24;
        private static final long REDRAW_NANOS = 100_000_000L;

        private final PrintWriter err;
        private final boolean live;
        private final String label;
        private final long started = System.nanoTime();
        private long lastDrawn;
        private boolean shown;

        private final long intervalNanos;
        private long lastLine = started;

        ProgressBar(PrintWriter err, boolean live, String label) {
            this(err, live, label, Duration.ZERO);
        }

        ProgressBar(PrintWriter err, boolean live, String label, Duration interval) {
            this.err = err;
            this.live = live;
            this.label = label;
            this.intervalNanos = interval.toNanos();
        }

        void show(EvaluationProgress p) {
            show(p.done(), p.total(), p.passRate(), p.elapsed());
        }

        /** @param passRate the pass rate so far, or negative for none */
        synchronized void show(int done, int total, double passRate, Duration elapsed) {
            if (!live) {
                line(done, total, passRate);
                return;
            }
            long now = System.nanoTime();
            if (done < total && now - lastDrawn < REDRAW_NANOS) {
                return;
            }
            lastDrawn = now;
            double seconds = (now - started) / 1e9;
            double rate = seconds <= 0 ? 0 : done / seconds;
            int filled = total == 0 ? WIDTH : (int) ((long) WIDTH * done / total);
            StringBuilder s = new StringBuilder(CLEAR_LINE).append(label).append(" [")
                    .append("#".repeat(filled)).append("-".repeat(WIDTH - filled)).append("] ")
                    .append(done).append('/').append(total);
            if (passRate >= 0) {
                s.append(String.format(Locale.ROOT, "  pass %.1f%%", passRate * 100));
            }
            s.append(String.format(Locale.ROOT, "  %.1f/s", rate));
            if (rate > 0 && done < total) {
                s.append("  ETA ").append(eta((long) Math.ceil((total - done) / rate)));
            }
            err.print(s);
            err.flush();
            shown = true;
        }

        private void line(int done, int total, double passRate) {
            long now = System.nanoTime();
            if (intervalNanos <= 0 || done >= total || now - lastLine < intervalNanos) {
                return;
            }
            lastLine = now;
            double seconds = (now - started) / 1e9;
            double rate = seconds <= 0 ? 0 : done / seconds;
            StringBuilder s = new StringBuilder("codeagent: ").append(label).append(' ').append(done).append('/').append(total);
            if (passRate >= 0) {
                s.append(String.format(Locale.ROOT, ", pass %.1f%%", passRate * 100));
            }
            s.append(String.format(Locale.ROOT, ", %.1f/s", rate));
            s.append(", ETA ").append(rate > 0 ? eta((long) Math.ceil((total - done) / rate)) : "unknown");
            err.println(s);
            err.flush();
        }

        /** {@code 7s}, {@code 2m05s}, {@code 1h02m} */
        static String eta(long seconds) {
            if (seconds < 60) {
                return seconds + "s";
            }
            if (seconds < 3600) {
                return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
            }
            return String.format(Locale.ROOT, "%dh%02dm", seconds / 3600, seconds % 3600 / 60);
        }

        synchronized void clear() {
            if (shown) {
                err.print(CLEAR_LINE);
                err.flush();
                shown = false;
            }
        }
    }
}
