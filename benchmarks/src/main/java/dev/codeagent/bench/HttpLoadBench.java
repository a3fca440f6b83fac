package dev.codeagent.bench;

import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A bounded load generator for {@code POST /v1/executions}: for each client count, that many
 * clients send {@code print(1)} back to back until a fixed number of requests has been sent or a
 * fixed time has passed, whichever comes first; then it prints throughput, p50/p99 latency of
 * answered and of refused requests, and errors, each level beside the first (the baseline). A
 * refused client (429/503) waits for the Retry-After it was given, as a well-behaved client does.
 *
 * <pre>
 * java HttpLoadBench.java --url http://127.0.0.1:8080 --key KEY --levels 1,4,8 --requests 400 --seconds 60
 * </pre>
 *
 * Only loopback addresses are accepted: this is a tool for measuring one's own server on one's own
 * machine. JDK only, so it also runs as a single source file.
 */
public final class HttpLoadBench {

    private HttpLoadBench() {
    }

    /** What one level measured. */
    record Result(int clients, int sent, int ok, int refused, int errors, double seconds, long[] okNanos, long[] refusedNanos) {
        double throughput() {
            return ok / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "http://127.0.0.1:8080";
        String key = System.getenv("CODEAGENT_KEY");
        int[] levels = {1, 4, 8};
        int requests = 400;
        int seconds = 60;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--url":
                    url = args[++i];
                    break;
                case "--key":
                    key = args[++i];
                    break;
                case "--levels":
                    levels = Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                    break;
                case "--requests":
                    requests = Integer.parseInt(args[++i]);
                    break;
                case "--seconds":
                    seconds = Integer.parseInt(args[++i]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown argument " + args[i]
                            + "; usage: --url URL --key KEY --levels 1,4,8 --requests N --seconds S");
            }
        }
        URI target = URI.create(url).resolve("/v1/executions");
        if (!InetAddress.getByName(target.getHost()).isLoopbackAddress()) {
            throw new IllegalArgumentException("refusing to load " + target.getHost() + ": only loopback addresses are allowed");
        }
        if (requests < 1 || requests > 100_000 || seconds < 1 || seconds > 600) {
            throw new IllegalArgumentException("--requests must be 1..100000 and --seconds 1..600");
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest.Builder request = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"python\",\"code\":\"print(1)\"}"));
        if (key != null && !key.isEmpty()) {
            request.header("Authorization", "Bearer " + key);
        }
        HttpRequest req = request.build();

        // warm up the JIT and the sandbox's first starts; not measured
        run(client, req, 2, 20, 30);

        System.out.printf(Locale.ROOT, "%-8s %6s %6s %8s %7s %10s %9s %9s %11s %11s %9s%n", "clients", "sent", "ok", "refused",
                "errors", "ok/s", "p50 ms", "p99 ms", "refused p50", "refused p99", "vs base");
        Result base = null;
        for (int clients : levels) {
            Result r = run(client, req, clients, requests, seconds);
            if (base == null) {
                base = r;
            }
            System.out.printf(Locale.ROOT, "%-8d %6d %6d %8d %7d %10.1f %9.1f %9.1f %11s %11s %8.2fx%n", r.clients(), r.sent(), r.ok(),
                    r.refused(), r.errors(), r.throughput(), ms(pct(r.okNanos(), 50)), ms(pct(r.okNanos(), 99)),
                    r.refusedNanos().length == 0 ? "-" : String.format(Locale.ROOT, "%.1f", ms(pct(r.refusedNanos(), 50))),
                    r.refusedNanos().length == 0 ? "-" : String.format(Locale.ROOT, "%.1f", ms(pct(r.refusedNanos(), 99))),
                    r.throughput() / base.throughput());
        }
    }

    static Result run(HttpClient client, HttpRequest req, int clients, int requests, int seconds) throws InterruptedException {
        AtomicInteger tickets = new AtomicInteger(requests);
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        List<Long> okNanos = new ArrayList<>();
        List<Long> refusedNanos = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        AtomicLong sent = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < clients; c++) {
            Thread t = new Thread(() -> {
                while (tickets.getAndDecrement() > 0 && System.nanoTime() < deadline) {
                    sent.incrementAndGet();
                    long s = System.nanoTime();
                    try {
                        HttpResponse<String> r = client.send(req, HttpResponse.BodyHandlers.ofString());
                        long took = System.nanoTime() - s;
                        if (r.statusCode() == 200 && r.body().contains("\"outcome\":\"OK\"")) {
                            ok.incrementAndGet();
                            synchronized (okNanos) {
                                okNanos.add(took);
                            }
                        } else if (r.statusCode() == 429 || r.statusCode() == 503) {
                            refused.incrementAndGet();
                            synchronized (refusedNanos) {
                                refusedNanos.add(took);
                            }
                            // a well-behaved client waits as told before trying again
                            long after = r.headers().firstValueAsLong("Retry-After").orElse(1);
                            Thread.sleep(Math.min(after * 1000, Math.max(0, (deadline - System.nanoTime()) / 1_000_000)));
                        } else {
                            errors.incrementAndGet();
                        }
                    } catch (java.io.IOException e) {
                        errors.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }, "load-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        return new Result(clients, (int) sent.get(), ok.get(), refused.get(), errors.get(), elapsed, sorted(okNanos),
                sorted(refusedNanos));
    }

    private static long[] sorted(List<Long> xs) {
        long[] a = xs.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }

    private static long pct(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }
}
