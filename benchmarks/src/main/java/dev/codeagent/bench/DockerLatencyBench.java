package dev.codeagent.bench;

import dev.codeagent.application.config.ByteSize;
import dev.codeagent.application.spi.IsolationMode;
import dev.codeagent.domain.execution.ExecutionRequest;
import dev.codeagent.domain.execution.Language;
import dev.codeagent.domain.execution.ResourceLimits;
import dev.codeagent.sandbox.docker.DockerSandbox;
import dev.codeagent.sandbox.docker.DockerSandboxConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Latency of {@code print(1)} through the docker tier with its warm pool, through the docker tier
 * without a pool (create, start, run for every execution), and through {@code docker run --rm IMAGE
 * python3 -c 'print(1)'} started from this JVM, all on the same image. The three are interleaved
 * after a warm-up so that machine noise hits them alike; before each docker-tier run the sandbox is
 * let settle (pool full, no removal pending), which is what the pool is for: an execution arriving
 * while a warm container waits. A last block runs the pooled sandbox back to back without waiting,
 * to show what a sustained stream faster than the refill gets. Prints p50/p95 and the ratios.
 *
 * <p>Usage: {@code DockerLatencyBench [iterations] [warm-up]} (defaults 40 and 5); the image is
 * {@code $CODEAGENT_SANDBOX_IMAGE} or {@code codeagent-sandbox:latest}; the runtime {@code $CODEAGENT_DOCKER_RUNTIME}
 * ({@code runc}, the default, or {@code runsc}).
 */
public final class DockerLatencyBench {

    private static final Duration SETTLE = Duration.ofSeconds(60);

    private DockerLatencyBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String image = System.getenv().getOrDefault("CODEAGENT_SANDBOX_IMAGE", "codeagent-sandbox:latest");
        // runc or runsc (gVisor): the tier and `docker run --runtime` alike
        String runtime = System.getenv().getOrDefault("CODEAGENT_DOCKER_RUNTIME", DockerSandboxConfig.RUNC);
        ResourceLimits limits = ResourceLimits.defaults();
        ExecutionRequest request = ExecutionRequest.of(Language.PYTHON, "print(1)");
        try (DockerSandbox pooled = DockerSandbox.create(new DockerSandboxConfig(null, image, 2, 1.0, ByteSize.ofMiB(64), runtime), limits,
                IsolationMode.BEST_EFFORT);
                DockerSandbox unpooled = DockerSandbox.create(new DockerSandboxConfig(null, image, 0, 1.0, ByteSize.ofMiB(64), runtime),
                        limits, IsolationMode.BEST_EFFORT)) {
            LongSupplier viaPool = () -> {
                settle(pooled);
                settle(unpooled);
                return Latencies.time(() -> Latencies.check(pooled.execute(request), "pooled"));
            };
            LongSupplier viaNoPool = () -> {
                settle(pooled);
                settle(unpooled);
                return Latencies.time(() -> Latencies.check(unpooled.execute(request), "unpooled"));
            };
            List<String> dockerRun = List.of("docker", "run", "--rm", "--runtime=" + runtime, image, "python3", "-c", "print(1)");
            LongSupplier viaDockerRun = () -> {
                settle(pooled);
                settle(unpooled);
                return Latencies.time(() -> run(dockerRun));
            };

            for (int i = 0; i < warmup; i++) {
                viaPool.getAsLong();
                viaNoPool.getAsLong();
                viaDockerRun.getAsLong();
            }
            long[] p = new long[n];
            long[] u = new long[n];
            long[] d = new long[n];
            for (int i = 0; i < n; i++) {
                // rotate the order so that none of the three always runs right after another
                switch (i % 3) {
                    case 0:
                        p[i] = viaPool.getAsLong();
                        u[i] = viaNoPool.getAsLong();
                        d[i] = viaDockerRun.getAsLong();
                        break;
                    case 1:
                        u[i] = viaNoPool.getAsLong();
                        d[i] = viaDockerRun.getAsLong();
                        p[i] = viaPool.getAsLong();
                        break;
                    default:
                        d[i] = viaDockerRun.getAsLong();
                        p[i] = viaPool.getAsLong();
                        u[i] = viaNoPool.getAsLong();
                        break;
                }
            }
            settle(pooled);
            long[] burst = new long[n];
            for (int i = 0; i < n; i++) {
                burst[i] = Latencies.time(() -> Latencies.check(pooled.execute(request), "pooled back to back"));
            }

            System.out.printf(Locale.ROOT, "docker tier latency, print(1), image %s, runtime %s, %d runs each after %d warm-up, %d cores%n",
                    image, runtime, n, warmup, Runtime.getRuntime().availableProcessors());
            System.out.println("isolation: " + pooled.isolation().sortedFeatures() + "  missing: " + pooled.isolation().sortedMissing());
            System.out.printf(Locale.ROOT, "%-52s %9s %9s %9s%n", "", "p50 ms", "p95 ms", "mean ms");
            Latencies.row("docker run --rm --runtime=" + runtime + " python3 -c ...", 52, d);
            Latencies.row("DockerSandbox, no pool (poolSize 0)", 52, u);
            Latencies.row("DockerSandbox, warm pool (poolSize 2)", 52, p);
            Latencies.row("DockerSandbox, pool, back to back (no settling)", 52, burst);
            System.out.printf(Locale.ROOT, "ratio warm pool / docker run: p50 %.3f (1/%.1f)  p95 %.3f   target: p50 at most 1/8%n",
                    Latencies.pct(p, 50) / Latencies.pct(d, 50), Latencies.pct(d, 50) / Latencies.pct(p, 50), Latencies.pct(p, 95) / Latencies.pct(d, 95));
            System.out.printf(Locale.ROOT, "ratio no pool / docker run:   p50 %.3f  p95 %.3f%n", Latencies.pct(u, 50) / Latencies.pct(d, 50),
                    Latencies.pct(u, 95) / Latencies.pct(d, 95));
        }
    }

    private static void settle(DockerSandbox sandbox) {
        if (!sandbox.awaitSettled(SETTLE)) {
            throw new IllegalStateException("the docker sandbox did not settle within " + SETTLE.toSeconds() + " s");
        }
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        try (InputStream in = p.getInputStream()) {
            byte[] out = in.readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || !new String(out, StandardCharsets.UTF_8).equals("1\n")) {
                throw new IllegalStateException("docker run failed: " + new String(out, StandardCharsets.UTF_8));
            }
        }
    }

}
