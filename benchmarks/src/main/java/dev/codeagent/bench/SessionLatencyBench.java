package dev.codeagent.bench;

import dev.codeagent.application.session.PooledSessions;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.domain.session.Cell;
import dev.codeagent.domain.session.CellResult;
import dev.codeagent.domain.session.CellStatus;
import dev.codeagent.domain.session.Session;
import dev.codeagent.domain.session.SessionLimits;
import dev.codeagent.domain.session.SessionSandbox;
import dev.codeagent.sandbox.docker.DockerSandbox;
import dev.codeagent.sandbox.docker.DockerSandboxConfig;
import dev.codeagent.sandbox.process.ProcessSandbox;
import dev.codeagent.sandbox.process.ProcessSandboxConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sessions' start and per-cell latency on each tier: {@code ROUNDS} sessions opened (start to the kernel's answer,
 * cold: sessions are not pooled) and {@code CELLS} cells of {@code 1+1} in each. Prints the medians in the form
 * session-latency.sh compares with its baseline (jupyter_client driving a local, unsandboxed ipykernel).
 *
 * <p>Usage: {@code SessionLatencyBench [ROUNDS] [CELLS] [TIERS]} (defaults 5, 50, {@code process,docker}).
 */
public final class SessionLatencyBench {

    private SessionLatencyBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int cells = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        String tiers = args.length > 2 ? args[2] : "process,docker";
        for (String tier : tiers.split(",")) {
            try (AutoCloseable sandbox = open(tier)) {
                measure(tier, (SessionSandbox) sandbox, rounds, cells);
            } catch (RuntimeException e) {
                System.out.println(tier + " unavailable: " + e.getMessage());
            }
        }
    }

    private static AutoCloseable open(String tier) {
        return switch (tier) {
            case "process" -> new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT, 0);
            case "docker" -> {
                DockerSandboxConfig d = DockerSandboxConfig.defaults();
                yield DockerSandbox.create(new DockerSandboxConfig(d.host(), d.image(), 0, d.cpus(), d.tmpfsSize(), d.runtime()),
                        ResourceLimits.defaults(), IsolationMode.BEST_EFFORT);
            }
            default -> throw new IllegalArgumentException("unknown tier " + tier);
        };
    }

    private static void measure(String tier, SessionSandbox sandbox, int rounds, int cells) {
        List<Long> starts = new ArrayList<>();
        List<Long> runs = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            try (Session s = sandbox.open(SessionLimits.defaults())) {
                starts.add(System.nanoTime() - t0);
                for (int c = 0; c < cells; c++) {
                    long t1 = System.nanoTime();
                    CellResult result = s.execute(new Cell("1+1"));
                    runs.add(System.nanoTime() - t1);
                    if (result.status() != CellStatus.OK) {
                        throw new IllegalStateException("1+1 gave " + result);
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s start %.1f%n", tier, median(starts) / 1e6);
        System.out.printf(Locale.ROOT, "%s cell %.2f%n", tier, median(runs) / 1e6);
        // the HTTP API's pool (http.sessionPool): an open served by a session started ahead, once it is ready
        List<Long> pooledStarts = new ArrayList<>();
        try (PooledSessions pool = new PooledSessions(sandbox, SessionLimits.defaults(), 1)) {
            pool.open(SessionLimits.defaults()).close();
            for (int r = 0; r < rounds; r++) {
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (pool.ready() == 0 && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                long t0 = System.nanoTime();
                Session s = pool.open(SessionLimits.defaults());
                pooledStarts.add(System.nanoTime() - t0);
                s.close();
            }
        }
        System.out.printf(Locale.ROOT, "%s pooled %.1f%n", tier, median(pooledStarts) / 1e6);
    }

    private static double median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
    }
}
