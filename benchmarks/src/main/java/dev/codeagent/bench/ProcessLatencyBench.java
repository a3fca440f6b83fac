package dev.codeagent.bench;

import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.sandbox.process.ProcessSandbox;
import dev.codeagent.sandbox.process.ProcessSandboxConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Latency of {@code print(1)} through {@link ProcessSandbox} next to a bare start of the same interpreter
 * binary from the same JVM (ProcessBuilder, stdout read to the end, exit awaited), once with the
 * interpreter's default flags and once with the flags the sandbox uses. The sandbox is measured as
 * configured by default (a sandbox pre-started in the background while the caller does other work) and
 * with every execution's sandbox started when it comes ("cold"). All four are interleaved, after a
 * warm-up, so that machine noise hits them alike. Prints p50/p95 of each and the ratios.
 *
 * <p>Usage: {@code ProcessLatencyBench [iterations] [warm-up]} (defaults 200 and 30).
 */
public final class ProcessLatencyBench {

    private ProcessLatencyBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        try (ProcessSandbox sandbox = new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT);
                ProcessSandbox cold = new ProcessSandbox(ProcessSandboxConfig.defaults(), IsolationMode.BEST_EFFORT, 0)) {
            List<String> sandboxCommand = sandbox.interpreterCommand(Language.PYTHON);
            if (sandboxCommand.isEmpty()) {
                System.err.println("process-latency: no python interpreter found");
                System.exit(2);
            }
            String python = sandboxCommand.get(0);
            Path dir = Files.createTempDirectory("codeagent-bench-");
            Path script = dir.resolve("main.py");
            Files.writeString(script, "print(1)\n");
            try {
                List<String> bareDefault = List.of(python, script.toString());
                List<String> bareFlags = new ArrayList<>(sandboxCommand);
                bareFlags.add(script.toString());
                ExecutionRequest request = ExecutionRequest.of(Language.PYTHON, "print(1)");

                LongSupplier viaSandbox = () -> Latencies.time(() -> Latencies.check(sandbox.execute(request), "sandbox"));
                LongSupplier viaCold = () -> Latencies.time(() -> Latencies.check(cold.execute(request), "sandbox"));
                LongSupplier viaBare = () -> Latencies.time(() -> bare(bareDefault, dir));
                LongSupplier viaBareFlags = () -> Latencies.time(() -> bare(bareFlags, dir));

                List<LongSupplier> all = List.of(viaBare, viaBareFlags, viaSandbox, viaCold);
                for (int i = 0; i < warmup; i++) {
                    all.forEach(LongSupplier::getAsLong);
                }
                long[][] t = new long[all.size()][n];
                for (int i = 0; i < n; i++) {
                    // rotate the order so that none always runs right after another
                    for (int k = 0; k < all.size(); k++) {
                        int which = (k + i) % all.size();
                        t[which][i] = all.get(which).getAsLong();
                    }
                }
                long[] b = t[0];
                long[] f = t[1];
                long[] s = t[2];
                long[] c = t[3];
                System.out.printf(Locale.ROOT, "process sandbox latency, print(1), %d runs after %d warm-up, %d cores%n", n,
                        warmup, Runtime.getRuntime().availableProcessors());
                System.out.println("isolation: " + sandbox.isolation().sortedFeatures() + "  missing: "
                        + sandbox.isolation().sortedMissing());
                System.out.printf(Locale.ROOT, "%-48s %9s %9s %9s%n", "", "p50 ms", "p95 ms", "mean ms");
                Latencies.row("bare " + String.join(" ", bareDefault.subList(0, bareDefault.size() - 1)), 48, b);
                Latencies.row("bare " + String.join(" ", sandboxCommand), 48, f);
                Latencies.row("ProcessSandbox, pre-started (default)", 48, s);
                Latencies.row("ProcessSandbox, cold (preStarted=0)", 48, c);
                ratio("pre-started / bare (default flags)", s, b);
                ratio("pre-started / bare (sandbox flags)", s, f);
                ratio("cold / bare (default flags)", c, b);
                ratio("cold / bare (sandbox flags)", c, f);
            } finally {
                Files.deleteIfExists(script);
                Files.deleteIfExists(dir);
            }
        }
    }

    private static void bare(List<String> command, Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().put("LANG", "C.UTF-8");
        Process p = pb.start();
        p.getOutputStream().close();
        try (InputStream in = p.getInputStream()) {
            byte[] out = in.readAllBytes();
            if (p.waitFor() != 0 || out.length != 2) {
                throw new IllegalStateException("bare run failed: " + new String(out, java.nio.charset.StandardCharsets.UTF_8));
            }
        }
    }

    private static void ratio(String label, long[] x, long[] base) {
        System.out.printf(Locale.ROOT, "ratio %-38s p50 %.2fx  p95 %.2fx%n", label, Latencies.pct(x, 50) / Latencies.pct(base, 50),
                Latencies.pct(x, 95) / Latencies.pct(base, 95));
    }

}
